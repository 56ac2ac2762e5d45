import Foundation
import Glibc
import Storage

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
        let partial = destination + ".partial"
        if FileManager.default.fileExists(atPath: destination) {
            throw CommandFailure("backup directory \(destination) already exists: a backup never replaces anything")
        }
        if FileManager.default.fileExists(atPath: partial) {
            throw CommandFailure("\(partial) exists: an interrupted backup (or one running now); delete it once none runs, never restore it")
        }
        let database = try config.openDatabaseToCopy()
        let keyFile = config.issuerKeyFile
        // mkdir itself, not a helper that takes an existing directory as made: a second backup to
        // the same DEST at the same moment must not share (and then delete) this one's partial.
        guard mkdir(partial, 0o700) == 0 else {
            throw CommandFailure("cannot create backup directory \(partial): \(String(cString: strerror(errno)))")
        }
        let databaseCopy = (destination as NSString).appendingPathComponent("badges.sqlite")
        let keyCopy = (destination as NSString).appendingPathComponent("issuer-keys.json")
        do {
            // Taken before the snapshot: what the copy may lack starts no later than this.
            let startedAt = systemClock()
            let partialDatabase = (partial as NSString).appendingPathComponent("badges.sqlite")
            try database.backup(to: partialDatabase)
            let schemaVersion = try database.schemaVersion()
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
            // Served as a data directory, the copy is a restore: the record makes the first serve
            // ask for --restored and gives reconcile its --since. Its schema version is read from
            // the source: opening the copy would leave -wal and -shm files beside it.
            let record = BackupRecord(madeAt: startedAt, sourceDatabase: config.databasePath, schemaVersion: schemaVersion)
            let partialRecord = (partial as NSString).appendingPathComponent(BackupRecord.fileName)
            if case .failure(let failure) = FileSystem.writeAtomically(partialRecord, record.bytes) {
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
        output.out("backed up \(config.databasePath) to \(databaseCopy) and \(keyFile) to \(keyCopy)")
    }
}
