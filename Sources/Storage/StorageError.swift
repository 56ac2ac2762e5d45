import CSQLite

/// What went wrong in the database, in terms a caller can act on.
public enum StorageError: Error, Equatable, CustomStringConvertible {
    /// The database file could not be opened or created.
    case cannotOpen(path: String, reason: String)
    /// Another process held the write lock past the busy timeout.
    case busy
    /// A uniqueness or conditional-write rule refused the change; `constraint` names it.
    case conflict(constraint: String)
    /// The database was written by a newer version of the service.
    case newerSchema(found: Int, supported: Int)
    /// Stored data does not have the shape this version expects.
    case corrupt(String)
    /// Any other SQLite failure.
    case sqlite(code: Int32, message: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): return "cannot open database \(path): \(reason)"
        case .busy: return "database is busy (another writer held the lock too long)"
        case .conflict(let constraint): return "conflicting write: \(constraint)"
        case .newerSchema(let found, let supported):
            return "database schema version \(found) is newer than this service supports (\(supported)); upgrade the service"
        case .corrupt(let what): return "unexpected stored data: \(what)"
        case .sqlite(let code, let message): return "sqlite error \(code): \(message)"
        }
    }

    static func classify(code: Int32, extended: Int32, message: String) -> StorageError {
        switch code {
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy
        case SQLITE_CONSTRAINT: return .conflict(constraint: message)
        default: return .sqlite(code: extended, message: message)
        }
    }
}
