import BadgeCore
import Credentials
import Foundation
import Handlers
import Storage

extension ServiceConfiguration {
    /// Creates the data directory (mode 0700) if it does not exist yet: only `serve` and `init`
    /// call it.
    public func createDataDirectory() throws {
        if case .failure(let failure) = FileSystem.makeDirectory(dataDirectory, mode: 0o700, parents: true) {
            throw CommandFailure("cannot create data directory \(dataDirectory): \(failure.path == dataDirectory ? "" : failure.path + ": ")\(failure.reason)")
        }
    }

    /// Opens the existing database for an operator command. Never creates one: a mistyped
    /// `--data` must fail, not hand out codes from a fresh database the service never reads.
    public func openStore() throws -> SQLiteBadgeStore {
        var isDirectory: ObjCBool = false
        if databasePathSetting == nil,
           !FileManager.default.fileExists(atPath: dataDirectory, isDirectory: &isDirectory) || !isDirectory.boolValue {
            throw CommandFailure("no data directory \(dataDirectory): check --data (only serve and init create one)")
        }
        guard FileManager.default.fileExists(atPath: databasePath, isDirectory: &isDirectory) else {
            throw CommandFailure("no database at \(databasePath): check --data (only serve and init create one)")
        }
        guard !isDirectory.boolValue else { throw FileSystemError("open database", path: databasePath, reason: "is a directory") }
        return try openDatabase()
    }
}

extension ServiceConfiguration {
    /// The database at `databasePath` with the configured busy timeout and readers.
    func openDatabase() throws -> SQLiteBadgeStore {
        try SQLiteBadgeStore(path: databasePath, busyTimeoutMilliseconds: databaseBusyTimeoutMilliseconds,
                             readerCount: databaseReaders)
    }
}

/// What a data directory holds once prepared: the open database and the issuer keys.
public struct PreparedDataDirectory {
    public let store: SQLiteBadgeStore
    public let keyring: IssuerKeyring
    /// What was created, one line each, for the log.
    public let created: [String]

    /// At a clean stop: folds the write-ahead log into the database so one file remains.
    /// Returns a warning line when it could not (another process has the database open).
    public func checkpointForShutdown() -> String? {
        do {
            let mode = try store.database.checkpointForShutdown()
            return mode == "delete" ? nil : "database \(store.database.path) left in \(mode) mode: another process has it open"
        } catch {
            return "database \(store.database.path): checkpoint at shutdown failed: \(error)"
        }
    }
}

/// The first-start setup shared by `serve` and `init`: the directory, the database with the
/// default catalog, and issuer key index 1, each made only when missing, and a key only for a
/// database that has never sold anything.
public enum DataDirectorySetup {
    public static func prepare(_ config: ServiceConfiguration) throws -> PreparedDataDirectory {
        var created: [String] = []
        if !FileManager.default.fileExists(atPath: config.dataDirectory) {
            try config.createDataDirectory()
            created.append("created data directory \(config.dataDirectory)")
        }
        var isDirectory: ObjCBool = false
        let newDatabase = !FileManager.default.fileExists(atPath: config.databasePath, isDirectory: &isDirectory)
        guard !isDirectory.boolValue else { throw FileSystemError("open database", path: config.databasePath, reason: "is a directory") }
        if newDatabase {
            // SQLite would create it 0644 (and its -wal and -shm files take the same mode).
            let fd = open(config.databasePath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw FileSystemError("create database", path: config.databasePath, errno: errno) }
            close(fd)
        }
        let store = try config.openDatabase()
        if newDatabase { created.append("created database \(config.databasePath)") }
        if try DefaultCatalog.seedIfEmpty(store, at: systemClock()) { created.append("seeded the default catalog") }
        let (keyring, madeKey) = try IssuerKeyFile.loadOrCreate(path: config.issuerKeyFile,
                                                                databasePath: config.databasePath,
                                                                databaseHoldsPurchases: try store.holdsPurchases())
        if madeKey { created.append("created issuer key index 1 in \(config.issuerKeyFile)") }
        return PreparedDataDirectory(store: store, keyring: keyring, created: created)
    }
}
