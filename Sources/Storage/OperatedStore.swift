import BadgeCore

/// What `serve` and the operator commands need of a store beyond ``BadgeStore``, on either backend.
public protocol OperatedStore: BadgeStore, WalletStore {
    /// Where the database is, for lines the operator reads: a file path, or a URL without its password.
    var location: String { get }
    /// Whether any purchase was ever made (then issued credentials depend on the issuer key).
    func holdsPurchases() throws -> Bool
    /// What the database holds in total, for `/metrics`.
    func totals() throws -> StoreTotals
    /// The schema version the database is at.
    func schemaVersion() throws -> Int
    /// Records each index's issuer public key the database has not seen; returns the first index
    /// whose recorded key is another while credentials signed under it are stored (nil: none).
    func recordIssuerKeys(_ publicKeys: [Int: [UInt8]], at: Timestamp) throws -> Int?
}

extension SQLiteBadgeStore: OperatedStore {
    public var location: String { database.path }
    public func schemaVersion() throws -> Int { try database.schemaVersion() }
    public func recordIssuerKeys(_ publicKeys: [Int: [UInt8]], at: Timestamp) throws -> Int? {
        try database.write { try SQLStoreTransaction(conn: $0).recordIssuerKeys(publicKeys, at: at) }
    }
}

extension PostgresBadgeStore: OperatedStore {
    public var location: String { database.settings.redacted }
    public func schemaVersion() throws -> Int { try database.schemaVersion() }
    public func recordIssuerKeys(_ publicKeys: [Int: [UInt8]], at: Timestamp) throws -> Int? {
        try database.write { try SQLStoreTransaction(conn: $0).recordIssuerKeys(publicKeys, at: at) }
    }
}

extension SQLStoreTransaction {
    /// A key changed under an index nothing was signed with replaces the record: only stored
    /// credentials depend on it.
    func recordIssuerKeys(_ publicKeys: [Int: [UInt8]], at: Timestamp) throws -> Int? {
        var recorded: [Int: [UInt8]] = [:]
        for row in try conn.query("SELECT key_index, public_key FROM issuer_public_keys", []) {
            recorded[Int(try row.int(0))] = try row.blob(1)
        }
        for index in publicKeys.keys.sorted() where recorded[index] != nil && recorded[index] != publicKeys[index] {
            let signed = try conn.query("SELECT 1 FROM badge_issuances WHERE key_index = ? LIMIT 1", [.integer(Int64(index))])
            if !signed.isEmpty { return index }
        }
        for index in publicKeys.keys.sorted() where recorded[index] != publicKeys[index] {
            try conn.query("DELETE FROM issuer_public_keys WHERE key_index = ?", [.integer(Int64(index))])
            try conn.query("INSERT INTO issuer_public_keys (key_index, public_key, recorded_at) VALUES (?, ?, ?)",
                           [.integer(Int64(index)), .blob(publicKeys[index]!), .integer(at.seconds)])
        }
        return nil
    }
}
