import Foundation

/// `badge-service backup DEST`: a consistent copy of the data directory, safe while serving.
enum BackupCommand {
    static let help = """
        Usage: badge-service backup DEST [--config FILE] [--data DIR]

        Writes a new directory DEST (refused if it exists) holding a consistent copy of the
        database (at this version's schema or an older one, so a backup may be taken before an
        upgrade migrates it), made with SQLite's online backup API while the service may be running, and a
        copy of the issuer key file (read after the database, so it holds every key the copy
        uses), both mode 0600, and backup.json recording when the copy was made. It is built as
        DEST.partial and renamed to DEST once complete. DEST is itself a data directory: restore
        by stopping the service and serving from it with serve --restored once, then run
        reconcile (README, Operations).

        With [database] url set (PostgreSQL) it refuses: back the database up with pg_dump and
        copy the issuer key file (README, PostgreSQL).
        """

    static func run(_ args: inout CommandLineArguments, environment: [String: String], output: CommandOutput) throws {
        if args.wantsHelp() { output.out(help); return }
        let common = try CommonOptions.parse(&args, environment: environment)
        var destination = try args.requiredPositional("backup directory DEST")
        // "DEST/" names DEST: its partial is DEST.partial beside it, not a hidden file inside.
        while destination.count > 1, destination.hasSuffix("/") { destination.removeLast() }
        try args.finish()
        let config = common.configuration
        if config.databaseURL != nil {
            throw CommandFailure("[database] url is set: back up PostgreSQL with pg_dump, and copy the issuer key file \(config.issuerKeyFile)")
        }
        let written = try DataDirectoryBackup.write(config, to: destination)
        output.out("backed up \(config.databasePath) to \(written.database) and \(config.issuerKeyFile) to \(written.keyFile)")
    }
}
