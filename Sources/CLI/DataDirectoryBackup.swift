import Foundation
import Glibc
import Storage

/// The one way a backup of an SQLite data directory is written, by `backup DEST` and before a
/// migration: a new directory holding a consistent copy of the database (`badges.sqlite`, at this
/// version's schema or an older one), of the issuer key file (`issuer-keys.json`), both 0600, and
/// the record of when it was made (`backup.json`, ``BackupRecord``).
/// It is built as `DEST.partial` and renamed to DEST once complete. DEST is itself a data directory.
enum DataDirectoryBackup {
    /// What a backup wrote: its database and key file.
    struct Written {
        let database: String
        let keyFile: String
    }

    /// Writes the backup of `config`'s data to `destination` (no trailing slash), refused if it or
    /// its partial exists. Every failure is one line naming the path.
    static func write(_ config: ServiceConfiguration, to destination: String) throws -> Written {
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
        let written = Written(database: (destination as NSString).appendingPathComponent("badges.sqlite"),
                              keyFile: (destination as NSString).appendingPathComponent("issuer-keys.json"))
        do {
            // Taken before the snapshot: what the copy may lack starts no later than this.
            let startedAt = systemClock()
            try database.backup(to: (partial as NSString).appendingPathComponent("badges.sqlite"))
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
        return written
    }
}
