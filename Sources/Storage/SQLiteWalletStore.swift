import BadgeCore

// The coin ledger on SQLite (migration 10), on the same database and transactions as the badges.
extension SQLiteBadgeStore: WalletStore {
    public func readWallet<T>(_ body: (any WalletReader) throws -> T) throws -> T {
        try database.read { try body(SQLStoreTransaction(conn: $0)) }
    }

    public func writeWallet<T>(_ body: (any WalletWriter) throws -> T) throws -> T {
        try database.write { try body(SQLStoreTransaction(conn: $0)) }
    }
}

extension SQLStoreTransaction: WalletWriter {
    private static var coinColumns: String {
        """
            entry_key, account, kind, channel, external_ref, pack_id, coins, gross_usd_cents, net_usd_cents, created_at,
            environment, token_sha256
            """
    }

    private func coinRow(_ r: SQLRow) throws -> CoinRow {
        let kindText = try r.text(2)
        guard let kind = CoinRow.Kind(rawValue: kindText) else { throw StorageError.corrupt("coin row kind \(kindText)") }
        let environment = try r.optionalText(10).map { text in
            guard let environment = CoinRow.Environment(rawValue: text) else { throw StorageError.corrupt("coin row environment \(text)") }
            return environment
        }
        return CoinRow(entryKey: try r.text(0), account: try r.text(1), kind: kind, channel: try r.text(3),
                       externalRef: try r.optionalText(4), packId: try r.text(5), coins: try r.int(6),
                       grossUsdCents: try r.int(7), netUsdCents: try r.int(8), createdAt: Timestamp(seconds: try r.int(9)),
                       environment: environment, tokenSHA256: try r.optionalText(11))
    }

    func coinRow(entryKey: String) throws -> CoinRow? {
        try conn.query("SELECT \(Self.coinColumns) FROM wallet_coin_ledger WHERE entry_key = ?", [.text(entryKey)]).first.map(coinRow)
    }

    func coinPurchase(tokenSHA256: String) throws -> CoinRow? {
        try conn.query("""
            SELECT \(Self.coinColumns) FROM wallet_coin_ledger WHERE token_sha256 = ? AND kind = 'purchase' AND channel = 'google'
            """, [.text(tokenSHA256)]).first.map(coinRow)
    }

    func coinRows(account: String, limit: Int) throws -> [CoinRow] {
        try conn.query("SELECT \(Self.coinColumns) FROM wallet_coin_ledger WHERE account = ? ORDER BY row_id DESC LIMIT ?",
                       [.text(account), .integer(Int64(limit))]).map(coinRow)
    }

    func coinSum(account: String) throws -> Int64 {
        try conn.query("SELECT COALESCE(SUM(coins), 0) FROM wallet_coin_ledger WHERE account = ?", [.text(account)]).first?.int(0) ?? 0
    }

    func appendCoinRow(_ row: CoinRow) throws {
        try conn.query("""
            INSERT INTO wallet_coin_ledger (\(Self.coinColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(row.entryKey), .text(row.account), .text(row.kind.rawValue), .text(row.channel),
                  row.externalRef.map { .text($0) } ?? .null, .text(row.packId), .integer(row.coins),
                  .integer(row.grossUsdCents), .integer(row.netUsdCents), .integer(row.createdAt.seconds),
                  row.environment.map { .text($0.rawValue) } ?? .null, row.tokenSHA256.map { .text($0) } ?? .null])
    }
}
