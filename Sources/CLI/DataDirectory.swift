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

    /// Refuses a data directory group or others may write to: they could put their own database,
    /// key file or lock file (a symbolic link) in it. Only `serve` and `init` call it.
    public func refuseSharedDataDirectory() throws {
        var info = stat()
        guard stat(dataDirectory, &info) == 0 else { throw FileSystemError("open data directory", path: dataDirectory, errno: errno) }
        if info.st_mode & 0o022 != 0 {
            let mode = String(info.st_mode & 0o7777, radix: 8).leftPadded(to: 4)
            throw CommandFailure("data directory \(dataDirectory) has mode \(mode): writable by group or others; chmod 700 it")
        }
    }

    /// Refuses to work on a data directory, SQLite database or key file that another user owns:
    /// what this command wrote there (a `-wal` file, a key file) would be this user's, and the
    /// service, running as the owner, could not open it. Root is no exception.
    public func refuseForeignOwner() throws {
        var paths = [("data directory", dataDirectory), ("issuer key file", issuerKeyFile)]
        if databaseURL == nil { paths.append(("database", databasePath)) }
        for (what, path) in paths {
            var info = stat()
            guard stat(path, &info) == 0, info.st_uid != geteuid() else { continue }
            throw CommandFailure(ForeignOwner(what: what, path: path, owner: info.st_uid, runner: geteuid()).description)
        }
    }

    /// The SQLite database as it is, for a copy: at this version's schema or an older one (a backup
    /// taken before an upgrade migrates it), never created; the same checks as `openStore`.
    public func openDatabaseToCopy() throws -> SQLiteDatabase {
        try requireSQLiteFile()
        try refuseForeignOwner()
        return try SQLiteDatabase(path: databasePath, busyTimeoutMilliseconds: databaseBusyTimeoutMilliseconds, readerCount: 1,
                                  migrate: false, acceptingOlderSchema: true)
    }

    /// Opens the existing database for an operator command. Never creates one: a mistyped
    /// `--data` must fail, not hand out codes from a fresh database the service never reads.
    /// Only `migrate` migrates: other commands refuse a database at an older schema version.
    /// What opening did to the schema is logged (``SchemaLog``) and passed to `onSchemaEvent`.
    public func openStore(migrate: Bool = false, onSchemaEvent: SchemaReport = { _ in }) throws -> any OperatedStore {
        if let postgres = try postgresSettings() {
            try refuseSQLiteBesidePostgres(postgres)
            return try openPostgres(postgres, migrate: migrate, onSchemaEvent: onSchemaEvent)
        }
        try requireSQLiteFile()
        try refuseForeignOwner()
        return try openDatabase(migrate: migrate, onSchemaEvent: onSchemaEvent)
    }

    /// The data directory and the SQLite file an operator command opens exist (only serve and
    /// init create them), or one line naming what is missing.
    func requireSQLiteFile() throws {
        var isDirectory: ObjCBool = false
        if databasePathSetting == nil,
           !FileManager.default.fileExists(atPath: dataDirectory, isDirectory: &isDirectory) || !isDirectory.boolValue {
            throw CommandFailure("no data directory \(dataDirectory): check --data (only serve and init create one)")
        }
        guard FileManager.default.fileExists(atPath: databasePath, isDirectory: &isDirectory) else {
            throw CommandFailure("no database at \(databasePath): check --data (only serve and init create one)")
        }
        guard !isDirectory.boolValue else { throw FileSystemError("open database", path: databasePath, reason: "is a directory") }
    }
}

extension ServiceConfiguration {
    /// The database at `databasePath` with the configured busy timeout and readers; what opening
    /// did to the schema is logged and passed to `onSchemaEvent`.
    func openDatabase(migrate: Bool, onSchemaEvent: SchemaReport = { _ in }) throws -> SQLiteBadgeStore {
        try SQLiteBadgeStore(path: databasePath, busyTimeoutMilliseconds: databaseBusyTimeoutMilliseconds,
                             readerCount: databaseReaders, migrate: migrate,
                             report: { SchemaLog.log($0, location: databasePath); onSchemaEvent($0) })
    }

    /// The PostgreSQL settings when `[database] url` is set (nil: SQLite), the password read
    /// from `password_file` or `password`. Errors are one line naming the key or file.
    public func postgresSettings() throws -> PostgresSettings? {
        guard let url = databaseURL else { return nil }
        var password = databasePassword
        if let file = databasePasswordFile {
            guard password == nil else {
                throw CommandFailure("[database] password and password_file are both set: keep one")
            }
            try FileSystem.refuseShared(file, naming: "[database] password_file")
            switch ConfiguredFile.readText(file) {
            case .success(let text):
                guard let line = text.split(whereSeparator: \.isNewline).first.map(String.init), !line.isEmpty else {
                    throw CommandFailure("[database] password_file \(file) is empty")
                }
                password = line
            case .failure(let failure):
                throw CommandFailure("cannot read [database] password_file \(file): \(failure.reason)")
            }
        }
        do {
            return try PostgresSettings(url: url, password: password, poolSize: databasePoolSize,
                                        connectTimeoutSeconds: databaseConnectTimeoutSeconds,
                                        statementTimeoutMilliseconds: databaseStatementTimeoutMilliseconds)
        } catch {
            throw CommandFailure(error.description)
        }
    }

    /// Refuses PostgreSQL while the SQLite database holds the service's tables: its purchases
    /// would be silently left behind.
    func refuseSQLiteBesidePostgres(_ settings: PostgresSettings) throws {
        var info = stat()
        guard stat(databasePath, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
              try SQLiteDatabase.storedSchemaVersion(path: databasePath) > 0 else { return }
        throw CommandFailure("[database] url is set (\(settings.redacted)) but SQLite database \(databasePath) holds the service's tables: "
                             + "move its data to PostgreSQL and the file aside, or remove the url")
    }

    /// Connects to PostgreSQL and, with `migrate`, applies pending migrations (logged, and passed
    /// to `onSchemaEvent`); a failure is one line naming the server.
    func openPostgres(_ settings: PostgresSettings, migrate: Bool, onSchemaEvent: SchemaReport = { _ in }) throws -> PostgresBadgeStore {
        try namingServer(settings) {
            try PostgresBadgeStore(settings: settings, migrate: migrate,
                                   report: { SchemaLog.log($0, location: settings.redacted); onSchemaEvent($0) })
        }
    }

    func namingServer<T>(_ settings: PostgresSettings, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StorageError {
            if case .newerSchema = error { throw CommandFailure(error.description) }
            throw CommandFailure("database \(settings.redacted): \(error.reasonText)")
        }
    }
}

/// What a data directory holds once prepared: the open database and the issuer keys.
public struct PreparedDataDirectory {
    public let store: any OperatedStore
    public let keyring: IssuerKeyring
    /// What was created, one line each, for the log.
    public let created: [String]

    /// At a clean stop: folds the write-ahead log into the database so one file remains.
    /// Returns a warning line when it could not (another process has the database open).
    public func checkpointForShutdown() -> String? {
        // PostgreSQL keeps its own log: nothing to fold at a stop.
        guard let store = store as? SQLiteBadgeStore else { return nil }
        do {
            let mode = try store.database.checkpointForShutdown()
            return mode == "delete" ? nil : "database \(store.database.path) left in \(mode) mode: another process has it open"
        } catch {
            return "database \(store.database.path): checkpoint at shutdown failed: \(error)"
        }
    }
}

/// The first-start setup shared by `serve` and `init`: the directory, the database with the
/// default catalog, and issuer key index 1, each made only when missing, a key only for a
/// database that has never sold anything, and (SQLite) a database only beside no key file.
public enum DataDirectorySetup {
    /// `besideKeyFile`: `init --new-database`, the operator's word that a key file with no
    /// database is a deployment whose key was provisioned first, not a database lost.
    public static func prepare(_ config: ServiceConfiguration, besideKeyFile: Bool = false) throws -> PreparedDataDirectory {
        var created: [String] = []
        if !FileManager.default.fileExists(atPath: config.dataDirectory) {
            try config.createDataDirectory()
            created.append("created data directory \(config.dataDirectory)")
        }
        try config.refuseSharedDataDirectory()
        try config.refuseForeignOwner()
        var info = stat()
        let keyFileExists = lstat(config.issuerKeyFile, &info) == 0
        if let settings = try config.postgresSettings() {
            // The database is the server's; the data directory keeps the issuer keys.
            try config.refuseSQLiteBesidePostgres(settings)
            if !besideKeyFile { try refuseEmptyDatabaseBesideKeyFile(config) }
            let store = try config.openPostgres(settings, migrate: true)
            return try finish(config, store: store, created: created)
        }
        let newDatabase: Bool
        if stat(config.databasePath, &info) == 0 {
            guard info.st_mode & S_IFMT != S_IFDIR else { throw FileSystemError("open database", path: config.databasePath, reason: "is a directory") }
            newDatabase = false
        } else if errno == ENOENT {
            newDatabase = true
        } else {
            throw FileSystemError("open database", path: config.databasePath, errno: errno)
        }
        // An empty file (truncated, or made by hand) holds no purchases either: as lost as none.
        let blank = try !newDatabase && SQLiteDatabase.storedSchemaVersion(path: config.databasePath) == 0
        if keyFileExists, !besideKeyFile, newDatabase || blank {
            throw lostDatabase(newDatabase ? "no database at \(config.databasePath)"
                                           : "database \(config.databasePath) is empty (schema version 0)", config)
        }
        if newDatabase {
            // SQLite would create it 0644 (and its -wal and -shm files take the same mode).
            let fd = open(config.databasePath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw FileSystemError("create database", path: config.databasePath, errno: errno) }
            close(fd)
        }
        // A database a release made is backed up before this one migrates it (README, Upgrading).
        if !newDatabase { try PreMigrateBackup.beforeMigrating(config, plan: try SQLiteDatabase.schemaPlan(path: config.databasePath)) }
        let store = try config.openDatabase(migrate: true)
        if newDatabase { created.append("created database \(config.databasePath)") }
        if blank { created.append("created the tables of empty database \(config.databasePath)") }
        return try finish(config, store: store, created: created)
    }

    /// Refuses an existing database at schema version 0 beside an existing key file, as `init`
    /// refuses it: `migrate` would otherwise make a lost database look restored.
    public static func refuseEmptyDatabaseBesideKeyFile(_ config: ServiceConfiguration) throws {
        var info = stat()
        guard lstat(config.issuerKeyFile, &info) == 0 else { return }
        if let settings = try config.postgresSettings() {
            if try config.namingServer(settings, { try PostgresDatabase.storedSchemaVersion(settings: settings) }) == 0 {
                throw lostDatabase("database \(settings.redacted) is empty (schema version 0)", config)
            }
        } else if stat(config.databasePath, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
                  try SQLiteDatabase.storedSchemaVersion(path: config.databasePath) == 0 {
            throw lostDatabase("database \(config.databasePath) is empty (schema version 0)", config)
        }
    }

    /// A key file without its database is a database lost (a bad restore, a moved file): a
    /// new one would forget every purchase while the key goes on signing.
    private static func lostDatabase(_ what: String, _ config: ServiceConfiguration) -> CommandFailure {
        CommandFailure("\(what) but issuer key file \(config.issuerKeyFile) exists: "
                       + "restore the database; for a new deployment whose key file was provisioned first, "
                       + "run badge-service init --new-database")
    }

    private static func finish(_ config: ServiceConfiguration, store: any OperatedStore, created: [String]) throws -> PreparedDataDirectory {
        var created = created
        if try DefaultCatalog.seedIfEmpty(store, at: systemClock()) { created.append("seeded the default catalog") }
        let (keyring, madeKey) = try IssuerKeyFile.loadOrCreate(path: config.issuerKeyFile, store: store)
        if madeKey {
            let publicKey = keyring.publicKeysByIndex[1]!.text
            created.append("created issuer key index 1 in \(config.issuerKeyFile); its public key is \(publicKey)")
            created.append("SimpleX clients verify badges only with the issuer public keys they are configured with "
                           + "(released clients know SimpleX's own): configure yours with key index 1 above (badge-service issuer show prints it)")
        }
        return PreparedDataDirectory(store: store, keyring: keyring, created: created)
    }
}
