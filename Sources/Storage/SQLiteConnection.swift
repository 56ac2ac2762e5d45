import CSQLite

/// SQLITE_TRANSIENT: SQLite copies bound buffers before the bind call returns.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One SQLite connection. Not thread-safe: ``SQLiteDatabase`` hands each one to one thread at a time.
final class SQLiteConnection: SQLConnection {
    let handle: OpaquePointer
    private var statements: [StatementKey: OpaquePointer] = [:]

    /// Opens `path`. SQLite opens a file it may not write read-only even when asked for
    /// read-write; such a connection leaves the journal mode as it is (its writes fail, which
    /// /readyz reports).
    /// A write waits up to `busyTimeoutMilliseconds` for another process's write lock.
    init(path: String, readOnly: Bool, busyTimeoutMilliseconds: Int32 = Int32(SQLiteDatabase.defaultBusyTimeoutMilliseconds)) throws {
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw StorageError.cannotOpen(path: path, reason: message)
        }
        handle = db
        // Extended result codes tell a UNIQUE race (a conflict) from a failed CHECK (a bug).
        sqlite3_extended_result_codes(db, 1)
        // A concurrent writer (the CLI beside the server) waits rather than failing at once, but
        // only briefly: past the timeout the service answers a retryable error (README, Storage).
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        do {
            try execute("PRAGMA foreign_keys = ON")
            if !readOnly && sqlite3_db_readonly(db, "main") != 1 {
                try execute("PRAGMA journal_mode = WAL")
                try execute("PRAGMA synchronous = FULL")
            }
        } catch StorageError.sqlite(_, let message) {
            // SQLite opens lazily: a directory, an unreadable file or a read-only directory (no
            // -wal) fails here, and its message ("unable to open database file") names no path.
            // (deinit closes the handle: self is fully initialised here.)
            throw StorageError.cannotOpen(path: path, reason: message)
        }
    }

    deinit {
        for stmt in statements.values { sqlite3_finalize(stmt) }
        sqlite3_close_v2(handle)
    }

    /// Runs SQL without results (may hold several statements).
    func execute(_ sql: String) throws {
        var err: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &err)
        if rc != SQLITE_OK {
            let message = err.map { String(cString: $0) } ?? "error \(rc)"
            sqlite3_free(err)
            throw StorageError.classify(extended: rc, message: message)
        }
    }

    /// Runs one statement with bound values and collects its rows.
    @discardableResult
    func query(_ sql: String, _ values: [SQLValue] = []) throws -> [SQLRow] {
        let stmt = try prepared(sql)
        defer {
            sqlite3_reset(stmt)
            sqlite3_clear_bindings(stmt)
        }
        for (i, value) in values.enumerated() {
            let idx = Int32(i + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(stmt, idx)
            case .integer(let v): rc = sqlite3_bind_int64(stmt, idx, v)
            case .text(let s): rc = sqlite3_bind_text(stmt, idx, s, -1, transient)
            case .blob(let b):
                rc = b.withUnsafeBytes { sqlite3_bind_blob(stmt, idx, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(b.count), transient) }
            }
            guard rc == SQLITE_OK else { throw error(rc) }
        }
        var rows: [SQLRow] = []
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw error(rc) }
            let n = sqlite3_column_count(stmt)
            var row = [SQLValue]()
            row.reserveCapacity(Int(n))
            for c in 0..<n {
                switch sqlite3_column_type(stmt, c) {
                case SQLITE_NULL: row.append(.null)
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(stmt, c)))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(stmt, c))
                    if let p = sqlite3_column_blob(stmt, c), count > 0 {
                        row.append(.blob(Array(UnsafeRawBufferPointer(start: p, count: count))))
                    } else {
                        row.append(.blob([]))
                    }
                default:
                    row.append(.text(String(cString: sqlite3_column_text(stmt, c))))
                }
            }
            rows.append(SQLRow(values: row))
        }
        return rows
    }

    /// Rows changed by the last statement.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Whether a transaction is open: false after SQLite rolled one back by itself (an I/O
    /// error, a full disk), which takes every savepoint in it along.
    var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Kept alive as long as the connection, whose WAL hook points at it.
    private var walHookTarget: WALCheckpointer?

    /// Hands each commit's WAL size to `checkpointer` instead of checkpointing in the commit:
    /// the hook replaces SQLite's automatic checkpoint on this connection.
    func checkpointInBackground(_ checkpointer: WALCheckpointer) {
        walHookTarget = checkpointer
        sqlite3_wal_hook(handle, { context, db, _, pages in
            guard let context, let db else { return SQLITE_OK }
            Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(walPages: pages, writer: db)
            return SQLITE_OK
        }, Unmanaged.passUnretained(checkpointer).toOpaque())
    }

    /// Copies what it can of the log into the database file of the connection `handle`, without
    /// waiting for readers or the writer (`SQLITE_CHECKPOINT_PASSIVE`): the frames in the log and
    /// those now copied, or nil when it could not run. Static: the writer's WAL hook has only the
    /// handle.
    static func checkpointPassive(_ handle: OpaquePointer) -> (log: Int32, copied: Int32)? {
        var log: Int32 = -1, copied: Int32 = -1
        let rc = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &log, &copied)
        guard rc == SQLITE_OK, log >= 0, copied >= 0 else { return nil }
        return (log, copied)
    }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        let key = StatementKey(sql: sql)
        if let stmt = statements[key] { return stmt }
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw error(rc) }
        statements[key] = stmt
        return stmt
    }

    /// `rc` is an extended result code (enabled at open).
    private func error(_ rc: Int32) -> StorageError {
        StorageError.classify(extended: rc, message: String(cString: sqlite3_errmsg(handle)))
    }
}

/// The prepared-statement cache's key: hashed by the text's length and last 32 bytes, compared
/// whole. The statements are long and share their heads ("SELECT entry_id, …"); hashing every
/// byte cost about 1,000 instructions a statement (issue 17's profile).
private struct StatementKey: Hashable {
    let sql: String

    func hash(into hasher: inout Hasher) {
        var sql = sql
        sql.withUTF8 { bytes in
            hasher.combine(bytes.count)
            hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[max(0, bytes.count - 32)...]))
        }
    }
}
