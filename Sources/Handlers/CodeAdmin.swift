import BadgeCore
import Crypto
import Ledger
import Storage

/// Operator work on redemption codes (`badge-service codes …`). A new code is shown once,
/// to the operator who made it; only the SHA-256 of its canonical form is stored.
public struct CodeAdmin: Sendable {
    public let store: any BadgeStore
    public let clock: @Sendable () -> Timestamp
    public let randomBytes: @Sendable (Int) -> [UInt8]

    public init(store: any BadgeStore, clock: @escaping @Sendable () -> Timestamp,
                randomBytes: @escaping @Sendable (Int) -> [UInt8] = SecureRandom.bytes) {
        self.store = store
        self.clock = clock
        self.randomBytes = randomBytes
    }

    /// Why a code operation was refused.
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case invalid(String)
        case notACode
        case unknownCode
        case ambiguousPrefix(Int)

        public var description: String {
            switch self {
            case .invalid(let what): return what
            case .notACode:
                return "that is neither a well-formed badge code (SB-XXXXX-XXXXX-XXXXX-XXXXX) nor a hash prefix of 8 to 64 hex digits (codes list)"
            case .unknownCode: return "no such code, or it is already revoked"
            case .ambiguousPrefix(let n): return "that hash prefix names \(n) codes not revoked: give more of its digits"
            }
        }
    }

    /// A code as `codes list` shows it: never the code itself, which is not stored.
    public struct Listing: Sendable, Equatable {
        public var record: CodeRecord
        public var redemptions: Int
        /// The first hex digits of the hash, enough to tell codes apart.
        public var hashPrefix: String { String(Hex.encode(record.hash).prefix(12)) }
    }

    /// Creates `count` codes in one transaction and returns their display forms.
    public func create(badgeType: String, months: Int, uses: Int = 1, expires: Timestamp? = nil,
                       payment: CodePayment = .paid, count: Int = 1) throws -> [String] {
        try CatalogAdmin.checkKnown(badgeType, refuse: Refusal.invalid)
        guard (1...255).contains(months) else { throw Refusal.invalid("months must be 1...255") }
        guard (1...1000).contains(uses) else { throw Refusal.invalid("uses must be 1...1000") }
        guard (1...1000).contains(count) else { throw Refusal.invalid("count must be 1...1000") }
        let now = clock()
        if let expires, expires <= now { throw Refusal.invalid("the expiry is already past") }
        var codes: [BadgeCode] = []
        while codes.count < count {
            guard let code = BadgeCode(randomBytes: randomBytes(19)) else { continue }
            codes.append(code)
        }
        try store.write { w in
            for code in codes {
                try w.insertCode(CodeRecord(hash: SHA256.hash(code.hashInput), badgeType: BadgeType(badgeType), months: months,
                                            maxUses: uses, payment: payment, expiresAt: expires, createdAt: now))
            }
        }
        return codes.map(\.display)
    }

    /// Revokes the code `text` (any spelling the lenient parser accepts), or the one code not yet
    /// revoked whose hash starts with the hex digits `text` (as `codes list` shows it): codes are
    /// shown once, so one made but never seen can only be named so.
    public func revoke(_ text: String) throws {
        let now = clock()
        let hash: [UInt8]
        if let code = BadgeCode(parsing: text) {
            hash = SHA256.hash(code.hashInput)
        } else {
            let prefix = text.lowercased()
            guard (8...64).contains(prefix.count), prefix.allSatisfy(\.isHexDigit) else { throw Refusal.notACode }
            let matches = try store.read { try $0.codes() }.filter { $0.revokedAt == nil && Hex.encode($0.hash).hasPrefix(prefix) }
            guard matches.count <= 1 else { throw Refusal.ambiguousPrefix(matches.count) }
            guard let match = matches.first else { throw Refusal.unknownCode }
            hash = match.hash
        }
        guard try store.write({ try $0.revokeCode(hash: hash, at: now) }) else { throw Refusal.unknownCode }
    }

    /// Every code, newest first, with how many keys redeemed it.
    public func list() throws -> [Listing] {
        try store.read { r in
            try r.codes().map { Listing(record: $0, redemptions: try r.redemptions(codeHash: $0.hash).count) }
        }
    }
}
