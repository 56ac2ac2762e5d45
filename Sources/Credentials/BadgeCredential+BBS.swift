import BadgeCore
import BBS

extension BadgeCredential {
    /// The BBS header every badge credential is signed under.
    public static let header = Array("SimpleX badges v1".utf8)

    /// The signed messages, in order: master key, expiry text, type tag, extra (UTF-8).
    public var messages: [[UInt8]] {
        Self.messages(masterKey: masterKey, expiry: expiry, badgeType: badgeType, extra: extra)
    }

    /// The indices of the public messages (expiry, type, extra): only the master key is secret,
    /// so Sign caches the rest of its work per expiry and type.
    public static let publicMessageIndices: Set<Int> = [1, 2, 3]

    static func messages(masterKey: [UInt8], expiry: Timestamp, badgeType: BadgeType, extra: String) -> [[UInt8]] {
        [masterKey, Array(expiryText(expiry).utf8), Array(badgeType.rawValue.utf8), Array(extra.utf8)]
    }

    /// The expiry as signed: Haskell's iso8601Show, `2026-04-14T00:00:00Z`, with a fraction
    /// (trailing zeros trimmed) only when not a whole second.
    public static func expiryText(_ t: Timestamp) -> String {
        let whole = RFC3339.format(Timestamp(seconds: t.seconds))
        guard t.nanoseconds != 0 else { return whole }
        var fraction = String(t.nanoseconds)
        fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return whole.dropLast() + "." + fraction + "Z"
    }

    /// Whether the signature verifies under `publicKey` (which the caller picked by `keyIndex`).
    public func isValid(under publicKey: IssuerPublicKey) -> Bool {
        guard masterKey.count == 32, signature.count == BBS.signatureByteCount else { return false }
        return BBS.verify(publicKey: publicKey.key, signature: signature, header: Self.header, messages: messages)
    }
}
