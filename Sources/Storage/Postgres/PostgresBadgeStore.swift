import BadgeCore
import Ledger

/// ``BadgeStore`` on a PostgreSQL server, which several gateway instances may share: the same
/// queries as SQLite's (``SQLStoreTransaction``) in the transactions ``PostgresDatabase`` runs.
public final class PostgresBadgeStore: BadgeStore {
    public let database: PostgresDatabase

    /// Connects and migrates (or only checks the schema version, when `migrate` is false); see
    /// ``PostgresDatabase/init(settings:migrate:report:)``.
    public init(settings: PostgresSettings, migrate: Bool = true, report: SchemaReport = { _ in }) throws {
        database = try PostgresDatabase(settings: settings, migrate: migrate, report: report)
    }

    public func read<T>(_ body: (any StoreReader) throws -> T) throws -> T {
        try database.read { try body(SQLStoreTransaction(conn: $0)) }
    }

    public func write<T>(_ body: (any StoreWriter) throws -> T) throws -> T {
        try database.write { try body(SQLStoreTransaction(conn: $0)) }
    }

    public func readiness() -> Readiness { database.readiness() }

    /// Whether any purchase was ever made (then issued credentials depend on the issuer key).
    public func holdsPurchases() throws -> Bool {
        try database.read { try !$0.query("SELECT 1 FROM badge_purchases LIMIT 1").isEmpty }
    }

    /// The totals of ``StoreTotals``; the database's size is `pg_database_size`.
    public func totals() throws -> StoreTotals {
        try database.read { conn in
            try StoreTotals.read(conn, databaseBytes: { try $0.query("SELECT pg_database_size(current_database())").first?.int(0) ?? 0 })
        }
    }
}

/// The minutes' counts live in `badge_play_check_minutes`, updated by single statements outside
/// any transaction: under READ COMMITTED the server re-checks the condition on the row it locked,
/// where every instance's SERIALIZABLE writes of the one hot row would abort each other.
extension PostgresBadgeStore: SharedMinuteCounter {
    public func takeOne(minute: Int64, limit: Int) throws -> Bool {
        try database.autocommit { conn in
            let rows = try conn.query("""
                INSERT INTO badge_play_check_minutes (minute, used) VALUES (?, 1)
                ON CONFLICT (minute) DO UPDATE SET used = badge_play_check_minutes.used + 1
                WHERE badge_play_check_minutes.used < ?
                RETURNING used
                """, [.integer(minute), .integer(Int64(limit))])
            // The first check of a minute clears the minutes no one will count again.
            if try rows.first?.int(0) == 1 {
                try conn.query("DELETE FROM badge_play_check_minutes WHERE minute < ?", [.integer(minute - 1)])
            }
            return !rows.isEmpty
        }
    }

    public func countOne(minute: Int64) throws {
        try database.autocommit { conn in
            _ = try conn.query("""
                INSERT INTO badge_play_check_minutes (minute, used) VALUES (?, 1)
                ON CONFLICT (minute) DO UPDATE SET used = badge_play_check_minutes.used + 1
                """, [.integer(minute)])
        }
    }
}

