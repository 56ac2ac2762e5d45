/// A supporter badge credential: a BBS signature by issuer key `keyIndex` over the client's
/// master key and the badge it attests (type, expiry, extra). Credentials signs and verifies
/// it; Schema codes it as the protocol's `credential`.
public struct BadgeCredential: Hashable, Sendable {
    /// Which issuer key signed it (1 … 8 today; the wire allows 0 … 65535).
    public var keyIndex: Int
    /// The client's 32-byte master key.
    public var masterKey: [UInt8]
    /// The BBS signature (80 bytes for BLS12-381-SHA-256).
    public var signature: [UInt8]
    public var badgeType: BadgeType
    public var expiry: Timestamp
    /// Reserved; always empty today.
    public var extra: String

    public init(keyIndex: Int, masterKey: [UInt8], signature: [UInt8], badgeType: BadgeType, expiry: Timestamp,
                extra: String = "") {
        self.keyIndex = keyIndex
        self.masterKey = masterKey
        self.signature = signature
        self.badgeType = badgeType
        self.expiry = expiry
        self.extra = extra
    }
}
