import Foundation
import Storage

/// `badge-service backup DEST`: a consistent copy of the data directory, safe while serving.
enum BackupCommand {
    static let help = """
        Usage: badge-service backup DEST [--config FILE] [--data DIR]

        Writes a new directory DEST (refused if it exists) holding a consistent copy of the
        database, made with SQLite's online backup API while the service may be running, and a
        copy of the issuer key file, both mode 0600. DEST is itself a data directory: restore by
        stopping the service and serving from it (README, Operations).

        With [database] url set (PostgreSQL) it refuses: back the database up with pg_dump and
        copy the issuer key file (README, PostgreSQL).
        """

    static func run(_ args: inout CommandLineArguments, environment: [String: String], output: CommandOutput) throws {
        if args.wantsHelp() { output.out(help); return }
        let common = try CommonOptions.parse(&args, environment: environment)
        let destination = try args.requiredPositional("backup directory DEST")
        try args.finish()
        let config = common.configuration
        if config.databaseURL != nil {
            throw CommandFailure("[database] url is set: back up PostgreSQL with pg_dump, and copy the issuer key file \(config.issuerKeyFile)")
        }
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw CommandFailure("backup directory \(destination) already exists: a backup never replaces anything")
        }
        guard let store = try config.openStore() as? SQLiteBadgeStore else {
            throw CommandFailure("backup copies SQLite databases only")
        }
        let keyFile = config.issuerKeyFile
        guard let key = FileManager.default.contents(atPath: keyFile) else {
            throw CommandFailure("cannot read issuer key file \(keyFile): a backup without it cannot serve the credentials issued")
        }
        if case .failure(let failure) = FileSystem.makeDirectory(destination, mode: 0o700, parents: false) {
            throw CommandFailure("cannot create backup directory \(destination): \(failure.reason)")
        }
        let database = (destination as NSString).appendingPathComponent("badges.sqlite")
        let keyCopy = (destination as NSString).appendingPathComponent("issuer-keys.json")
        do {
            try store.database.backup(to: database)
            guard FileManager.default.createFile(atPath: keyCopy, contents: key, attributes: [.posixPermissions: 0o600]) else {
                throw CommandFailure("cannot write \(keyCopy)")
            }
        } catch {
            // A half-made backup must not look like a good one.
            try? FileManager.default.removeItem(atPath: destination)
            throw error
        }
        output.out("backed up \(config.databasePath) to \(database) and \(keyFile) to \(keyCopy)")
    }
}
