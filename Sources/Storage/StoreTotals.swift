/// What the database holds in total, for `/metrics`: ledger entries and their months by kind
/// and reason, credentials issued by badge type and issuer key, and the database's size.
/// Read from the tables, so the totals survive restarts and include operator commands' writes.
public struct StoreTotals: Sendable, Equatable {
    /// One group of ledger entries: `credit`/`debit` and the entry's reason (`code`, `badge`, …).
    public struct LedgerGroup: Sendable, Equatable {
        public let kind: String
        public let reason: String
        public let entries: Int64
        /// Months credited or debited (absolute).
        public let months: Int64
    }

    /// One group of issued credentials.
    public struct IssuanceGroup: Sendable, Equatable {
        public let badgeType: String
        public let keyIndex: Int64
        public let credentials: Int64
    }

    public let ledger: [LedgerGroup]
    public let issuances: [IssuanceGroup]
    public let purchases: Int64
    /// Pages in use times the page size: the database file's logical size.
    public let databaseBytes: Int64
}

extension SQLiteBadgeStore {
    /// The totals, in one read transaction. A scan of the ledger and issuance tables: run it off
    /// the event loops, at scrape time.
    public func totals() throws -> StoreTotals {
        try database.read { conn in
            try StoreTotals.read(conn) { conn in
                let pages = try conn.query("PRAGMA page_count").first?.int(0) ?? 0
                let pageSize = try conn.query("PRAGMA page_size").first?.int(0) ?? 0
                return pages * pageSize
            }
        }
    }
}

extension StoreTotals {
    /// The totals from the tables, both backends' queries; `databaseBytes` is the backend's own.
    static func read<Connection: SQLConnection>(_ conn: Connection, databaseBytes: (Connection) throws -> Int64) throws -> StoreTotals {
        let ledger = try conn.query("""
            SELECT entry_kind, entry_reason, COUNT(*), COALESCE(SUM(ABS(change_months)), 0)
            FROM badge_ledger GROUP BY entry_kind, entry_reason ORDER BY entry_kind, entry_reason
            """).map { row in
            StoreTotals.LedgerGroup(kind: try row.text(0), reason: try row.text(1), entries: try row.int(2), months: try row.int(3))
        }
        let issuances = try conn.query("""
            SELECT badge_type, key_index, COUNT(*) FROM badge_issuances GROUP BY badge_type, key_index
            ORDER BY badge_type, key_index
            """).map { row in
            StoreTotals.IssuanceGroup(badgeType: try row.text(0), keyIndex: try row.int(1), credentials: try row.int(2))
        }
        let purchases = try conn.query("SELECT COUNT(*) FROM badge_purchases").first?.int(0) ?? 0
        return StoreTotals(ledger: ledger, issuances: issuances, purchases: purchases, databaseBytes: try databaseBytes(conn))
    }
}
