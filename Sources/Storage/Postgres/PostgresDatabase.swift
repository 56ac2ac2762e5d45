import BadgeCore
import Foundation
import Locking

/// The PostgreSQL database: a bounded pool of connections shared by every thread of the process,
/// and by other processes through the server.
///
/// A write runs in one SERIALIZABLE transaction: the server aborts one of two transactions whose
/// reads and writes cannot be put in some order, so every read-then-write of the store holds
/// across gateway instances as it does under SQLite's single writer, and the constraints back each
/// uniqueness rule. A serialisation failure or deadlock re-runs the whole body (a few times, then
/// it is a ``StorageError/conflict(constraint:)``); a lost connection is closed, not pooled, and
/// the request fails with ``StorageError/unavailable(reason:)``. A read runs in one REPEATABLE READ,
/// READ ONLY transaction (a consistent snapshot).
/// A connection is used by one thread between taking it from `idle` and putting it back;
/// `permits` bounds how many are out at once.
public final class PostgresDatabase: Sendable {
    /// Attempts of a write whose transaction the server aborted for a serialisation failure or a deadlock.
    static let serialisationAttempts = 8

    public let settings: PostgresSettings
    private let idle = IdleConnections<PostgresConnection>()
    private let permits: DispatchSemaphore

    /// Connects once (so a wrong URL, password or server shows at start), applies pending
    /// migrations when `migrate` is set, and refuses a schema newer than this service knows
    /// (``StorageError/newerSchema(path:found:supported:)``) unless every step past its own is
    /// recorded additive, or, without `migrate`, older. `report` hears each migration step and a
    /// newer schema served.
    public init(settings: PostgresSettings, migrate: Bool = true, report: SchemaReport = { _ in }) throws {
        self.settings = settings
        permits = DispatchSemaphore(value: settings.poolSize)
        let first = try PostgresConnection(settings: settings)
        if migrate {
            try PostgresMigrations.apply(to: first, location: settings.redacted, report: report)
        } else {
            let plan = SchemaPlan(recorded: try PostgresMigrations.recordedSteps(first))
            if plan.isNewer {
                guard plan.servesNewer else {
                    throw StorageError.newerSchema(path: settings.redacted, found: plan.found, supported: Migrations.latestVersion)
                }
                report(.acceptedNewer(found: plan.found, supported: plan.latest, additiveSteps: plan.beyond.map(\.version)))
            } else if plan.found < Migrations.latestVersion {
                throw StorageError.unavailable(reason: "it is at schema version \(plan.found), this service needs \(Migrations.latestVersion): run badge-service migrate")
            }
        }
        idle.put(first)
    }

    /// The schema version of the database `settings` name, read on a connection of its own
    /// without migrating: 0 for a database the service never migrated.
    public static func storedSchemaVersion(settings: PostgresSettings) throws -> Int {
        try PostgresMigrations.currentVersion(try PostgresConnection(settings: settings))
    }

    /// Where the database `settings` name stands against this service's steps, read on a
    /// connection of its own without migrating (`migrate --status`, `--dry-run`).
    public static func schemaPlan(settings: PostgresSettings) throws -> SchemaPlan {
        SchemaPlan(recorded: try PostgresMigrations.recordedSteps(try PostgresConnection(settings: settings)))
    }

    /// Runs `body` in one write transaction; commits if it returns, rolls back if it throws.
    func write<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try transaction("BEGIN ISOLATION LEVEL SERIALIZABLE", body)
            } catch let retry as SerialisationFailure {
                guard attempt < Self.serialisationAttempts else { throw retry.error }
                // Spread the retries of transactions that collided, so they do not collide again.
                usleep(UInt32.random(in: 1_000...(5_000 * UInt32(attempt))))
            }
        }
    }

    /// Runs `body`'s statements outside any transaction (each commits by itself, READ COMMITTED):
    /// for a conditional update of one row every instance writes, which the server re-checks under
    /// the row's lock instead of aborting as a SERIALIZABLE transaction would.
    func autocommit<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try withConnection { conn in
            conn.resetTransactionState()
            return try body(conn)
        }
    }

    /// Runs `body` in one read-only transaction on a consistent snapshot.
    func read<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        do {
            return try transaction("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", body)
        } catch let failure as SerialisationFailure {
            throw failure.error
        }
    }

    /// A transaction the server aborted as a whole (serialisation failure or deadlock): `error`
    /// is what the body saw.
    private struct SerialisationFailure: Error { let error: any Error }

    /// The transaction's first statement failed: nothing of it reached the server, so it may be
    /// run again on another connection.
    private struct FailedAtBegin: Error { let error: any Error }

    private func transaction<T>(_ begin: String, _ body: (PostgresConnection) throws -> T) throws -> T {
        try withConnection { conn in
            conn.resetTransactionState()
            do { try conn.execute(begin) } catch { throw FailedAtBegin(error: error) }
            do {
                let result = try body(conn)
                try conn.execute("COMMIT")
                if conn.mustRetryTransaction { throw SerialisationFailure(error: StorageError.conflict(constraint: "serialisation failure")) }
                return result
            } catch {
                conn.rollback()
                if conn.mustRetryTransaction { throw SerialisationFailure(error: error) }
                throw error
            }
        }
    }

    /// Takes a connection for `body`, opening one when none is idle and fewer than the pool size
    /// are out, else waiting up to the connect timeout. A pooled connection the server dropped
    /// (a restart) fails at its first statement: then every idle one is closed, as they are as
    /// stale, and `body` runs once more on a fresh connection, unless the server did not answer
    /// at all (frozen or unreachable: another wait would only double the request's). A connection lost later is never
    /// run again: its COMMIT may have landed before the reply was lost, and a second run would
    /// write twice what is not conditional (an operator's support credit).
    private func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        guard permits.wait(timeout: .now() + .seconds(settings.connectTimeoutSeconds)) == .success else {
            throw StorageError.unavailable(reason: "all \(settings.poolSize) connections to \(settings.redacted) stayed busy for \(settings.connectTimeoutSeconds) s ([database] pool_size)")
        }
        defer { permits.signal() }
        do {
            if let pooled = idle.take() {
                do {
                    return try run(body, on: pooled)
                } catch let failed as FailedAtBegin where pooled.isBroken && !pooled.timedOut {
                    guard case StorageError.unavailable = failed.error else { throw failed }
                    idle.removeAll()
                }
            }
            return try run(body, on: try PostgresConnection(settings: settings))
        } catch let failed as FailedAtBegin {
            throw failed.error
        }
    }

    private func run<T>(_ body: (PostgresConnection) throws -> T, on conn: PostgresConnection) throws -> T {
        defer { if conn.isOpen { idle.put(conn) } }
        return try body(conn)
    }

    /// Whether a write lands now and a read succeeds (for /readyz), or why not, naming the server.
    public func readiness() -> Readiness {
        do {
            _ = try write { try $0.query("UPDATE service_readiness SET probes = probes + 1 WHERE id = 1") }
            _ = try read { try $0.query("SELECT probes FROM service_readiness") }
            return .ready
        } catch {
            let reason = (error as? StorageError)?.reasonText ?? "\(error)"
            return .notReady(reason: "database \(settings.redacted) is not available: \(reason)")
        }
    }

    /// The schema version the database is at (0: empty).
    public func schemaVersion() throws -> Int {
        try withConnection { try PostgresMigrations.currentVersion($0) }
    }

    /// Closes every idle connection (tests: a server restart; shutdown).
    public func closeIdleConnections() {
        idle.removeAll()
    }
}

extension PostgresDatabase {
    /// Runs SQL outside any transaction on a connection of its own (tests: creating a database).
    package static func execute(_ sql: String, settings: PostgresSettings) throws {
        try PostgresConnection(settings: settings).execute(sql)
    }

    /// The first column of each row of a query, as bytes. Tests only: reads what no protocol exposes.
    package func readBlobsForTesting(_ sql: String) throws -> [[UInt8]] {
        try read { try $0.query(sql).map { try $0.blob(0) } }
    }

    /// A database migrated only through `version`, as an older service left it.
    package static func createForTesting(settings: PostgresSettings, atVersion version: Int) throws {
        try PostgresMigrations.apply(to: try PostgresConnection(settings: settings), location: settings.redacted, through: version)
    }

    /// Runs SQL in a write transaction (tests: simulating a newer service, breaking a row).
    package func executeForTesting(_ sql: String) throws {
        _ = try write { try $0.execute(sql) }
    }
}
