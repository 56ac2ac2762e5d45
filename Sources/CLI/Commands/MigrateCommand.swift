import Foundation
import Storage

/// `badge-service migrate`: applies pending migrations to the configured database, explicitly.
enum MigrateCommand {
    static let help = """
        Usage: badge-service migrate [--config FILE] [--data DIR]

        Applies the database migrations this version has and the database has not yet, then
        prints the schema version. The database is SQLite's file in the data directory, or the
        PostgreSQL database of [database] url; several instances may run it at once (PostgreSQL
        migrations take an advisory lock). serve and init migrate as they open the database too;
        the other commands do not, and refuse a database at an older schema version until this
        or serve has run. A database a newer version migrated is refused (exit 1), as serve
        refuses it.
        """

    static func run(_ args: inout CommandLineArguments, environment: [String: String], output: CommandOutput) throws {
        if args.wantsHelp() { output.out(help); return }
        let common = try CommonOptions.parse(&args, environment: environment)
        try args.finish()
        try common.configuration.refuseForeignOwner()
        try DataDirectorySetup.refuseEmptyDatabaseBesideKeyFile(common.configuration)
        let store = try common.openStore(migrate: true)
        output.out("database \(store.location) is at schema version \(try store.schemaVersion())")
    }
}
