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
    /// Each issuer key index's public key as the database recorded it.
    func recordedIssuerKeys() throws -> [Int: [UInt8]]
    /// Records each index's issuer public key the database has no record of, in one transaction;
    /// a record is never replaced. Returns the first index whose recorded key is another (nil:
    /// every key is the recorded one now).
    func recordIssuerKeys(_ publicKeys: [Int: [UInt8]], at: Timestamp) throws -> IssuerKeyConflict?
}

/// A public key offered for an issuer key index that the database recorded with another: the
/// credentials one signs would fail under the other.
public struct IssuerKeyConflict: Equatable, Sendable {
    public let index: Int
    public let recorded: [UInt8]

    public init(index: Int, recorded: [UInt8]) {
        self.index = index
        self.recorded = recorded
    }
}

extension SQLiteBadgeStore: OperatedStore {
    public var location: String { database.path }
    public func schemaVersion() throws -> Int { try database.schemaVersion() }
    public func recordedIssuerKeys() throws -> [Int: [UInt8]] {
        try database.read { try SQLStoreTransaction(conn: $0).recordedIssuerKeys() }
    }
    public func recordIssuerKeys(_ publicKeys: [Int: [UInt8]], at: Timestamp) throws -> IssuerKeyConflict? {
        do { return try database.write { try SQLStoreTransaction(conn: $0).recordIssuerKeys(publicKeys, at: at) } } catch let race as IssuerKeyRace {
            return race.conflict
        }
    }
}

extension PostgresBadgeStore: OperatedStore {
    public var location: String { database.settings.redacted }
    public func schemaVersion() throws -> Int { try database.schemaVersion() }
    public func recordedIssuerKeys() throws -> [Int: [UInt8]] {
        try database.read { try SQLStoreTransaction(conn: $0).recordedIssuerKeys() }
    }
    public func recordIssuerKeys(_ publicKeys: [Int: [UInt8]], at: Timestamp) throws -> IssuerKeyConflict? {
        do { return try database.write { try SQLStoreTransaction(conn: $0).recordIssuerKeys(publicKeys, at: at) } } catch let race as IssuerKeyRace {
            return race.conflict
        }
    }
}

extension SQLStoreTransaction {
    func recordedIssuerKeys() throws -> [Int: [UInt8]] {
        var recorded: [Int: [UInt8]] = [:]
        for row in try conn.query("SELECT key_index, public_key FROM issuer_public_keys", []) {
            recorded[Int(try row.int(0))] = try row.blob(1)
        }
        return recorded
    }

    /// Compare, insert-if-absent, compare again: of two instances recording different keys for
    /// one index at once, the second's insert does nothing and it sees the first's key. A conflict
    /// writes nothing (a free index offered beside it stays free).
    func recordIssuerKeys(_ publicKeys: [Int: [UInt8]], at: Timestamp) throws -> IssuerKeyConflict? {
        let offered = publicKeys.sorted { $0.key < $1.key }
        func conflict(_ recorded: [Int: [UInt8]]) -> IssuerKeyConflict? {
            offered.first { recorded[$0.key] != nil && recorded[$0.key] != $0.value }
                .map { IssuerKeyConflict(index: $0.key, recorded: recorded[$0.key]!) }
        }
        let recorded = try recordedIssuerKeys()
        if let found = conflict(recorded) { return found }
        // Nothing new: no write at all (a database opened read-only still starts, not ready).
        let missing = offered.filter { recorded[$0.key] == nil }
        guard !missing.isEmpty else { return nil }
        for (index, key) in missing {
            try conn.query("INSERT INTO issuer_public_keys (key_index, public_key, recorded_at) VALUES (?, ?, ?) "
                           + "ON CONFLICT (key_index) DO NOTHING",
                           [.integer(Int64(index)), .blob(key), .integer(at.seconds)])
        }
        // Another instance's insert won the race: roll this transaction's inserts back.
        if let found = conflict(try recordedIssuerKeys()) { throw IssuerKeyRace(conflict: found) }
        return nil
    }
}

/// Thrown inside the recording transaction to roll it back when another instance recorded first.
struct IssuerKeyRace: Error {
    let conflict: IssuerKeyConflict
}
