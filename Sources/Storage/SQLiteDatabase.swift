import Foundation
import Locking

/// The SQLite database: WAL mode, foreign keys on, one writer.
///
/// Every write runs in one `BEGIN IMMEDIATE` transaction on the single writer connection,
/// serialised by a lock inside the process and by SQLite's write lock across processes
/// (the CLI may write while the server runs). Reads use a small pool of read-only
/// connections, which WAL lets run beside the writer.
///
/// `@unchecked Sendable`: the writer connection is used only under `writeLock` (held for a whole
/// transaction), and the pool of readers only inside its box (a reader taken from it is used by
/// one thread until put back).
public final class SQLiteDatabase: @unchecked Sendable {
    public let path: String
    private let writer: SQLiteConnection
    private let writeLock = NSLock()
    private let readers = LockedValueBox<[SQLiteConnection]>([])

    /// Opens (creating if needed) the database at `path` and applies pending migrations.
    public init(path: String) throws {
        self.path = path
        writer = try SQLiteConnection(path: path, readOnly: false)
        try Migrations.apply(to: writer)
    }

    /// Runs `body` in one write transaction; commits if it returns, rolls back if it throws.
    func write<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        writeLock.lock()
        defer { writeLock.unlock() }
        try writer.execute("BEGIN IMMEDIATE")
        do {
            let result = try body(writer)
            try writer.execute("COMMIT")
            return result
        } catch {
            try? writer.execute("ROLLBACK")
            throw error
        }
    }

    /// Runs `body` in one read transaction on a pooled read-only connection (a consistent snapshot).
    func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let conn = try takeReader()
        defer { returnReader(conn) }
        try conn.execute("BEGIN")
        defer { try? conn.execute("COMMIT") }
        return try body(conn)
    }

    /// Whether a write transaction can start and finish now (for /readyz).
    public func isWritable() -> Bool {
        (try? write { try $0.query("SELECT 1") }) != nil
    }

    /// Clean shutdown: closes the pooled readers and takes the database out of WAL mode, which
    /// checkpoints the log into the database file and removes the `-wal` and `-shm` files (the
    /// next open returns to WAL). Returns the journal mode in effect after it: "delete", or still
    /// "wal" when another process (an operator command) has the database open.
    public func checkpointForShutdown() throws -> String {
        readers.withLock { $0.removeAll() }
        writeLock.lock()
        defer { writeLock.unlock() }
        return try writer.query("PRAGMA journal_mode = DELETE").first?.text(0) ?? ""
    }

    private func takeReader() throws -> SQLiteConnection {
        if let conn = readers.withLock({ $0.popLast() }) { return conn }
        return try SQLiteConnection(path: path, readOnly: true)
    }

    private func returnReader(_ conn: SQLiteConnection) {
        readers.withLock { pool in
            if pool.count < 8 { pool.append(conn) }
        }
    }
}

extension SQLiteDatabase {
    /// The journal mode in effect ("wal" once opened by the service).
    public func journalMode() throws -> String {
        try write { try $0.query("PRAGMA journal_mode").first?.text(0) ?? "" }
    }

    /// Runs raw SQL in a write transaction. Tests only: simulates other versions' data.
    package func executeForTesting(_ sql: String) throws {
        try write { try $0.execute(sql) }
    }
}
