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
}

extension SQLiteBadgeStore: OperatedStore {
    public var location: String { database.path }
    public func schemaVersion() throws -> Int { try database.schemaVersion() }
}

extension PostgresBadgeStore: OperatedStore {
    public var location: String { database.settings.redacted }
    public func schemaVersion() throws -> Int { try database.schemaVersion() }
}
