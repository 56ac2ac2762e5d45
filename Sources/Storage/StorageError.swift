import CSQLite

/// What went wrong in the database, in terms a caller can act on.
public enum StorageError: Error, Equatable, CustomStringConvertible {
    /// The database file could not be opened or created.
    case cannotOpen(path: String, reason: String)
    /// Another process held the write lock past the busy timeout; `path` names the database
    /// once ``SQLiteDatabase`` has seen it (SQLite's code alone does not).
    case busy(path: String?)
    /// Another writer got there first: a UNIQUE or PRIMARY KEY race, or a conditional write
    /// whose expected state moved. Re-reading and re-planning may succeed; `constraint` names it.
    case conflict(constraint: String)
    /// A write broke a rule the code is meant to keep (a CHECK, NOT NULL or foreign-key
    /// constraint): a bug, never retried. `constraint` is SQLite's text naming it.
    case brokenInvariant(ConstraintKind, constraint: String)
    /// The database at `path` (a file, or PostgreSQL's redacted URL) was migrated by a newer
    /// version of the service.
    case newerSchema(path: String, found: Int, supported: Int)
    /// Stored data does not have the shape this version expects.
    case corrupt(String)
    /// Any other SQLite failure (`code` is SQLite's extended result code).
    case sqlite(code: Int32, message: String)
    /// The database cannot take the transaction now: the PostgreSQL server cannot be reached or
    /// answer (a restart, no connection in time, a statement past its timeout), or SQLite's disk
    /// is full or failed, or a write grouped with this one failed so both were rolled back.
    /// Nothing of the transaction landed; retrying later may succeed.
    case unavailable(reason: String)
    /// Any other PostgreSQL failure (`sqlstate` is the server's five-character code).
    case postgres(sqlstate: String, message: String)

    /// The kind of constraint a ``brokenInvariant(_:constraint:)`` failed.
    public enum ConstraintKind: String, Equatable, Sendable {
        case check = "CHECK"
        case notNull = "NOT NULL"
        case foreignKey = "FOREIGN KEY"
        /// A trigger's RAISE, a generated column or another kind SQLite adds.
        case other = "constraint"
    }

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): return "cannot open database \(path): \(reason)"
        case .busy(let path):
            return "database \(path.map { $0 + " " } ?? "")is busy: another process held its write lock past [database] busy_timeout_ms"
        case .conflict(let constraint): return "conflicting write: \(constraint)"
        case .brokenInvariant(let kind, let constraint): return "broken invariant (\(kind.rawValue)): \(constraint)"
        case .newerSchema(let path, let found, let supported):
            return "database \(path) is at schema version \(found), newer than this service supports (\(supported)): upgrade the service"
        case .corrupt(let what): return "unexpected stored data: \(what)"
        case .sqlite(let code, let message): return "sqlite error \(code): \(message)"
        case .unavailable(let reason): return "database unavailable: \(reason)"
        case .postgres(let sqlstate, let message): return "postgresql error \(sqlstate): \(message)"
        }
    }

    /// The failure without the code SQLite gives it: what a line naming the file ends with.
    public var reasonText: String {
        switch self {
        case .sqlite(_, let message), .postgres(_, let message), .unavailable(let message): return message
        default: return description
        }
    }

    /// Classifies an extended result code (connections enable extended codes, so `extended`
    /// tells which constraint failed; its low byte is the primary code).
    /// A full disk or an I/O error is an outage, as a lost PostgreSQL server is: nothing of the
    /// write landed and it may succeed once the operator freed space or the disk recovered.
    package static func classify(extended: Int32, message: String) -> StorageError {
        switch extended & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy(path: nil)
        case SQLITE_FULL: return .unavailable(reason: "the disk is full: \(message)")
        case SQLITE_IOERR: return .unavailable(reason: "disk I/O error: \(message)")
        case SQLITE_CONSTRAINT:
            switch extended {
            case CSQLITE_CONSTRAINT_UNIQUE, CSQLITE_CONSTRAINT_PRIMARYKEY, CSQLITE_CONSTRAINT_ROWID:
                return .conflict(constraint: message)
            case CSQLITE_CONSTRAINT_CHECK: return .brokenInvariant(.check, constraint: message)
            case CSQLITE_CONSTRAINT_NOTNULL: return .brokenInvariant(.notNull, constraint: message)
            case CSQLITE_CONSTRAINT_FOREIGNKEY: return .brokenInvariant(.foreignKey, constraint: message)
            default: return .brokenInvariant(.other, constraint: message)
            }
        default: return .sqlite(code: extended, message: message)
        }
    }
}
