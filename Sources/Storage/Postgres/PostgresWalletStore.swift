// The coin ledger on PostgreSQL: the same queries as SQLite's (SQLiteWalletStore.swift), in the
// transactions of ``PostgresDatabase``.
extension PostgresBadgeStore: WalletStore {
    public func readWallet<T>(_ body: (any WalletReader) throws -> T) throws -> T {
        try database.read { try body(SQLStoreTransaction(conn: $0)) }
    }

    public func writeWallet<T>(_ body: (any WalletWriter) throws -> T) throws -> T {
        try database.write { try body(SQLStoreTransaction(conn: $0)) }
    }
}
