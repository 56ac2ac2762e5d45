import Foundation
import Glibc
import Storage

/// `badge-service backup DEST`: a consistent copy of the data directory, safe while serving.
enum BackupCommand {
    static let help = """
        Usage: badge-service backup DEST [--config FILE] [--data DIR]

        Writes a new directory DEST (refused if it exists) holding a consistent copy of the
        database, made with SQLite's online backup API while the service may be running, and a
        copy of the issuer key file (read after the database, so it holds every key the copy
        uses), both mode 0600. It is built as DEST.partial and renamed to DEST once complete.
        DEST is itself a data directory: restore by stopping the service and serving from it
        (README, Operations).

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
        let partial = destination + ".partial"
        for path in [destination, partial] where FileManager.default.fileExists(atPath: path) {
            throw CommandFailure("backup directory \(path) already exists: a backup never replaces anything")
        }
        guard let store = try config.openStore() as? SQLiteBadgeStore else {
            throw CommandFailure("backup copies SQLite databases only")
        }
        let keyFile = config.issuerKeyFile
        if case .failure(let failure) = FileSystem.makeDirectory(partial, mode: 0o700, parents: false) {
            throw CommandFailure("cannot create backup directory \(partial): \(failure.reason)")
        }
        let database = (destination as NSString).appendingPathComponent("badges.sqlite")
        let keyCopy = (destination as NSString).appendingPathComponent("issuer-keys.json")
        do {
            try store.database.backup(to: (partial as NSString).appendingPathComponent("badges.sqlite"))
            // Read after the snapshot: a key added meanwhile may sign rows the snapshot holds,
            // and a key file newer than its database serves them all.
            let key: [UInt8]
            switch FileSystem.read(keyFile) {
            case .success(let bytes): key = bytes
            case .failure(let failure):
                throw CommandFailure("cannot read issuer key file \(keyFile): \(failure.reason); a backup without it cannot serve the credentials issued")
            }
            let partialKey = (partial as NSString).appendingPathComponent("issuer-keys.json")
            if case .failure(let failure) = FileSystem.writeAtomically(partialKey, key) {
                throw CommandFailure("cannot write \(failure.path): \(failure.reason)")
            }
            // Only a complete backup carries the name asked for: an interrupted one stays
            // DEST.partial. rename replaces no file and no non-empty directory.
            guard rename(partial, destination) == 0 else {
                throw FileSystemError("rename \(partial) to", path: destination, errno: errno)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
        output.out("backed up \(config.databasePath) to \(database) and \(keyFile) to \(keyCopy)")
    }
}
