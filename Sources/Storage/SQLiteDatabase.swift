import BadgeCore
import CSQLite
import Foundation
import Locking

/// The SQLite database: WAL mode, foreign keys on, one writer.
///
/// Every write runs in a `BEGIN IMMEDIATE` transaction on the single writer connection,
/// serialised by a lock inside the process and by SQLite's write lock across processes
/// (the CLI may write while the server runs); writes that queue behind one share its commit. Reads use a fixed pool of read-only connections,
/// opened and tried at start so a failure shows there and not on a later request; WAL lets them
/// run beside the writer. A read waits for a free reader rather than opening another. The log is
/// checkpointed in the background past `checkpointPages`, not in a request's commit (``WALCheckpointer``).
///
/// `@unchecked Sendable`: a connection is not Sendable; the writer is used only inside
/// `writerState.withLock` and a reader by the one thread that took it from the pool.
public final class SQLiteDatabase: @unchecked Sendable {
    /// How long a write waits for another process's write lock unless configured: well under the
    /// seconds a client waits, since past it the service answers a retryable error.
    public static let defaultBusyTimeoutMilliseconds = 1_000

    /// WAL pages (16 MiB) past which a commit has the log checkpointed in the background. Four
    /// times SQLite's own automatic threshold: each cycle ends with one commit that waits for the
    /// writer's catch-up (``CheckpointSchedule``), and at 1,000 pages that was over 1% of the
    /// redemptions in bench/scale, which put it in their p99 (3.7–4.6 ms against 1.3–2.8 ms).
    public static let defaultCheckpointPages: Int32 = 4_000

    public let path: String
    private let writer: SQLiteConnection
    /// The writer's bookkeeping; its lock is held for a whole transaction on `writer`.
    private let writerState = LockedValueBox(WriterState())
    /// Writers between asking for `writerState`'s lock and holding it: a commit group waits for them.
    private let waitingWriters = LockedValueBox(0)
    private let readers = IdleConnections<SQLiteConnection>()
    private let freeReaders: DispatchSemaphore
    private let checkpointer: WALCheckpointer

    /// Opens (creating if needed) the database at `path`, applies pending migrations and opens
    /// `readerCount` readers, each tried with a read. A write waits up to
    /// `busyTimeoutMilliseconds` for another process's lock. Past `checkpointPages` pages of
    /// log a commit has it checkpointed in the background. Without `migrate` the file must
    /// exist at this service's schema version: it is neither created nor changed before that is
    /// checked; `acceptingOlderSchema` lets it be at an older one (a backup taken before an
    /// upgrade copies pages, whatever their schema). A newer schema is served when every step past
    /// this service's is recorded additive, else refused. `report` hears each migration step and a
    /// newer schema served. Any failure is ``StorageError/cannotOpen(path:reason:)`` naming the
    /// file, or ``StorageError/newerSchema(path:found:supported:)``.
    public init(path: String, busyTimeoutMilliseconds: Int = SQLiteDatabase.defaultBusyTimeoutMilliseconds,
                readerCount: Int = 2, checkpointPages: Int32 = SQLiteDatabase.defaultCheckpointPages,
                migrate: Bool = true, acceptingOlderSchema: Bool = false, report: SchemaReport = { _ in }) throws {
        self.path = path
        let timeout = Int32(clamping: busyTimeoutMilliseconds)
        checkpointer = WALCheckpointer(path: path, pages: checkpointPages, busyTimeoutMilliseconds: timeout)
        do {
            if !migrate {
                let plan = try Self.schemaPlan(path: path)
                if plan.isNewer {
                    guard plan.servesNewer else {
                        throw StorageError.newerSchema(path: path, found: plan.found, supported: Migrations.latestVersion)
                    }
                    report(.acceptedNewer(found: plan.found, supported: plan.latest, additiveSteps: plan.beyond.map(\.version)))
                } else if plan.found < Migrations.latestVersion && !(acceptingOlderSchema && plan.found > 0) {
                    throw StorageError.cannotOpen(path: path, reason: "it is at schema version \(plan.found), this service needs \(Migrations.latestVersion): run badge-service migrate")
                }
            }
            writer = try SQLiteConnection(path: path, readOnly: false, busyTimeoutMilliseconds: timeout)
            if migrate { try Migrations.apply(to: writer, path: path, report: report) }
            // 0 or less keeps SQLite's automatic checkpoint in the commit (the benchmark's baseline).
            if checkpointPages > 0 { writer.checkpointInBackground(checkpointer) }
            var opened: [SQLiteConnection] = []
            for _ in 0..<max(1, readerCount) {
                let reader = try SQLiteConnection(path: path, readOnly: true, busyTimeoutMilliseconds: timeout)
                try reader.query("SELECT COUNT(*) FROM schema_migrations")
                opened.append(reader)
            }
            readers.replace(with: opened)
            freeReaders = DispatchSemaphore(value: opened.count)
        } catch let error as StorageError {
            switch error {
            case .cannotOpen, .newerSchema: throw error
            default: throw StorageError.cannotOpen(path: path, reason: error.reasonText)
            }
        }
    }

    /// Runs `body` in a write transaction and returns once it is committed; if `body` throws,
    /// what it wrote is rolled back and the error thrown. Writes that arrive while one runs
    /// share its transaction and commit (``CommitGroup``): one sync for all of them.
    func write<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        waitingWriters.withLock { $0 += 1 }
        let (group, result) = try writerState.withLock { state -> (CommitGroup, Result<T, any Error>) in
            waitingWriters.withLock { $0 -= 1 }
            let group: CommitGroup
            if let open = state.openGroup {
                group = open
                state.openGroup = nil
            } else {
                do {
                    try writer.query("BEGIN IMMEDIATE")
                } catch {
                    throw Self.located(error, path)
                }
                group = CommitGroup()
            }
            let size = group.add()
            let result: Result<T, any Error>
            do {
                try writer.query("SAVEPOINT write")
                let value = try body(writer)
                try writer.query("RELEASE write")
                result = .success(value)
            } catch {
                result = .failure(Self.located(error, path))
                if writer.inTransaction {
                    do {
                        try writer.query("ROLLBACK TO write")
                        try writer.query("RELEASE write")
                    } catch {
                        // It cannot be undone alone, so it must not be committed with the others.
                        _ = try? writer.query("ROLLBACK")
                    }
                }
            }
            if !writer.inTransaction {
                // The whole transaction was rolled back (by SQLite after an I/O error or a full
                // disk, or above): the group's earlier writes went with it.
                let cause: String
                if case .failure(let error) = result { cause = "\(error)" } else { cause = "the transaction ended inside a write" }
                // Nothing of this write landed and a retry may: transient, whatever its neighbour's cause.
                group.finish(.failure(StorageError.unavailable(reason: "\(path): rolled back with a write grouped with it: \(cause)")))
            } else if CommitGroupPolicy.handsOver(groupSize: size, waitingWriters: waitingWriters.withLock { $0 }) {
                state.openGroup = group
            } else {
                group.finish(commit(&state))
            }
            return (group, result)
        }
        let ended = group.ended()
        let value = try result.get()
        try ended.get()
        return value
    }

    /// Commits the writer's transaction; on failure rolls it back and says why.
    private func commit(_ state: inout WriterState) -> Result<Void, any Error> {
        state.commits += 1
        do {
            try writer.query("COMMIT")
            return .success(())
        } catch {
            _ = try? writer.query("ROLLBACK")
            return .failure(Self.located(error, path))
        }
    }

    /// A busy error names the database (the lock another process holds); others pass unchanged.
    private static func located(_ error: any Error, _ path: String) -> any Error {
        if case StorageError.busy = error { return StorageError.busy(path: path) }
        return error
    }

    /// Runs `body` in one read transaction on a pooled read-only connection (a consistent snapshot).
    /// The transaction statements go through the connection's prepared statements like any query:
    /// `sqlite3_exec` would parse them again for every request (issue 17's profile).
    func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        // Waiting for ever, a reader always comes.
        guard let conn = try takeReader(waiting: true) else { preconditionFailure("a reader waited for did not come") }
        return try readTransaction(on: conn, body)
    }

    /// ``read(_:)`` on a reader free now, or nil (nothing run) when every reader is taken: for an
    /// event loop, which must not wait for one. In WAL mode a reader waits for no writer, so the
    /// read itself runs on pages SQLite or the kernel already holds, bar a cold start.
    func readWithoutWaiting<T>(_ body: (SQLiteConnection) throws -> T) throws -> T? {
        guard let conn = try takeReader(waiting: false) else { return nil }
        return try readTransaction(on: conn, body)
    }

    /// One read transaction on `conn`, which goes back to the pool after it.
    private func readTransaction<T>(on conn: SQLiteConnection, _ body: (SQLiteConnection) throws -> T) throws -> T {
        defer { returnReader(conn) }
        try conn.query("BEGIN")
        defer { _ = try? conn.query("COMMIT") }
        return try body(conn)
    }

    /// Whether a write lands now and a reader reads (for /readyz): one short write transaction
    /// that changes a row, then a read of it on a pooled reader. Not ready names the database
    /// and SQLite's reason: read-only, busy past the timeout, or any other failure.
    public func readiness() -> Readiness {
        do {
            _ = try write { try $0.query("UPDATE service_readiness SET probes = probes + 1 WHERE id = 1") }
        } catch StorageError.busy {
            return .notReady(reason: "database \(path) is busy: another process holds its write lock")
        } catch {
            let reason = (error as? StorageError)?.reasonText ?? "\(error)"
            return .notReady(reason: "database \(path) is not writable: \(reason)")
        }
        do {
            _ = try read { try $0.query("SELECT probes FROM service_readiness") }
        } catch {
            let reason = (error as? StorageError)?.reasonText ?? "\(error)"
            return .notReady(reason: "database \(path) cannot be read: \(reason)")
        }
        return .ready
    }

    /// Clean shutdown: closes the pooled readers and takes the database out of WAL mode, which
    /// checkpoints the log into the database file and removes the `-wal` and `-shm` files (the
    /// next open returns to WAL). Returns the journal mode in effect after it: "delete", or still
    /// "wal" when another process (an operator command) has the database open. Reads fail after it.
    public func checkpointForShutdown() throws -> String {
        checkpointer.stop()
        readers.removeAll()
        return try writerState.withLock { state in
            commitOpenGroup(&state)
            return try writer.query("PRAGMA journal_mode = DELETE").first?.text(0) ?? ""
        }
    }

    /// Copies the whole log into the database file and empties it (`wal_checkpoint(TRUNCATE)`,
    /// which waits for readers): a benchmark settles a bulk load with it before timing.
    package func checkpointCompletely() throws {
        try writerState.withLock { state in
            commitOpenGroup(&state)
            _ = try writer.query("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    /// Commits a group left open for a writer that has not taken it yet (under `writerState`'s lock).
    private func commitOpenGroup(_ state: inout WriterState) {
        guard let open = state.openGroup else { return }
        state.openGroup = nil
        open.finish(commit(&state))
    }

    /// A pooled reader; nil, without waiting, when `waiting` is false and none is free.
    private func takeReader(waiting: Bool) throws -> SQLiteConnection? {
        guard freeReaders.wait(timeout: waiting ? .distantFuture : .now()) == .success else { return nil }
        guard let conn = readers.take() else {
            freeReaders.signal()
            throw StorageError.cannotOpen(path: path, reason: "the database was closed for shutdown")
        }
        return conn
    }

    private func returnReader(_ conn: SQLiteConnection) {
        readers.put(conn)
        freeReaders.signal()
    }
}

/// What the writer connection's lock guards besides the connection.
private struct WriterState: Sendable {
    /// The transaction a write left open for the next one to join.
    var openGroup: CommitGroup?
    /// Commits so far.
    var commits = 0
}

extension SQLiteDatabase {
    /// Background checkpoints run so far (tests: the log is checkpointed off the request path).
    package var backgroundCheckpoints: Int { checkpointer.completed }
    /// Checkpoints the writer ran after a commit to copy what a background one left.
    package var writerCatchUps: Int { checkpointer.catchUps }
    /// Whether a background checkpoint is under way (a benchmark lets it end before timing
    /// another database).
    package var backgroundCheckpointRunning: Bool { checkpointer.running }

    /// Commits of write transactions so far (tests: concurrent writes share them).
    package var commitCount: Int {
        writerState.withLock { $0.commits }
    }

    /// The journal mode in effect ("wal" once opened by the service).
    public func journalMode() throws -> String {
        try write { try $0.query("PRAGMA journal_mode").first?.text(0) ?? "" }
    }

    /// The first column of each row of a query, as blobs. Tests only: reads what no protocol exposes.
    package func readBlobsForTesting(_ sql: String) throws -> [[UInt8]] {
        try read { try $0.query(sql).map { try $0.blob(0) } }
    }

    /// Runs raw SQL in a write transaction. Tests only: simulates other versions' data.
    /// The schema version the database is at.
    public func schemaVersion() throws -> Int {
        Int(try read { try $0.query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations").first?.int(0) ?? 0 })
    }

    /// The schema version of the existing file at `path`, read on a read-only connection so
    /// nothing is created or changed: 0 for an empty file or one without the version table.
    public static func storedSchemaVersion(path: String) throws -> Int {
        let conn = try SQLiteConnection(path: path, readOnly: true)
        do {
            return try Migrations.storedVersion(conn)
        } catch let error as StorageError {
            throw StorageError.cannotOpen(path: path, reason: error.reasonText)
        }
    }

    /// Where the existing file at `path` stands against this service's steps, read on a read-only
    /// connection so nothing is created or changed (`migrate --status`, `--dry-run`).
    public static func schemaPlan(path: String) throws -> SchemaPlan {
        let conn = try SQLiteConnection(path: path, readOnly: true)
        do {
            return SchemaPlan(recorded: try Migrations.recordedSteps(conn))
        } catch let error as StorageError {
            throw StorageError.cannotOpen(path: path, reason: error.reasonText)
        }
    }

    /// Every table's SQL and rows, as text, read on a read-only connection (tests: a backup holds
    /// what the database it copied held, whatever its file's header says).
    package static func contentsForTesting(path: String) throws -> [String] {
        let conn = try SQLiteConnection(path: path, readOnly: true)
        var lines: [String] = []
        for table in try conn.query("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name") {
            let name = try table.text(0)
            lines.append("table \(name): \(try table.text(1))")
            for row in try conn.query("SELECT * FROM \"\(name)\" ORDER BY rowid") { lines.append("  \(row.values)") }
        }
        return lines
    }

    /// A database migrated only through `version`, as an older service left it.
    package static func createForTesting(path: String, atVersion version: Int) throws {
        try Migrations.apply(to: try SQLiteConnection(path: path, readOnly: false), path: path, through: version)
    }

    /// The schema version of this service: what `migrate` brings a database to.
    public static var latestSchemaVersion: Int { Migrations.latestVersion }

    package func executeForTesting(_ sql: String) throws {
        try write { try $0.execute(sql) }
    }
}
