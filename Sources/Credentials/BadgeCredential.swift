import BadgeCore
import BBS
import Foundation

/// A supporter badge credential: a BBS signature by issuer key `keyIndex` over the header
/// `SimpleX badges v1` and four messages — master key, expiry text, badge type tag, extra.
public struct BadgeCredential: Sendable, Equatable {
    /// The BBS header every badge credential is signed under.
    public static let header = Array("SimpleX badges v1".utf8)

    /// Which issuer key (1 … 8) signed it.
    public var keyIndex: Int
    /// The client's 32-byte master key (message 0).
    public var masterKey: [UInt8]
    /// The 80-byte BBS signature A ‖ e.
    public var signature: [UInt8]
    public var badgeType: BadgeType
    public var expiry: Timestamp
    /// Always empty today (message 3).
    public var extra: String

    public init(keyIndex: Int, masterKey: [UInt8], signature: [UInt8], badgeType: BadgeType, expiry: Timestamp, extra: String = "") {
        self.keyIndex = keyIndex
        self.masterKey = masterKey
        self.signature = signature
        self.badgeType = badgeType
        self.expiry = expiry
        self.extra = extra
    }

    /// The signed messages, in order: master key, expiry text, type tag, extra (UTF-8).
    public var messages: [[UInt8]] {
        Self.messages(masterKey: masterKey, expiry: expiry, badgeType: badgeType, extra: extra)
    }

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

extension BadgeCredential {
    /// `{"badgeKeyIdx":N,"masterKey":"…","signature":"…","badgeInfo":{"badgeType":"…","badgeExpiry":"…","badgeExtra":""}}`:
    /// fields in upstream's (aeson's) order, byte strings base64url-padded, as `issuer sign` prints it.
    public func jsonText() -> String {
        let info = #"{"badgeType":\#(Self.jsonString(badgeType.rawValue)),"badgeExpiry":\#(Self.jsonString(RFC3339.format(expiry))),"badgeExtra":\#(Self.jsonString(extra))}"#
        return #"{"badgeKeyIdx":\#(keyIndex),"masterKey":\#(Self.jsonString(Base64URL.encode(masterKey))),"signature":\#(Self.jsonString(Base64URL.encode(signature))),"badgeInfo":\#(info)}"#
    }

    /// A JSON string literal (quoted and escaped by JSONSerialization).
    private static func jsonString(_ value: String) -> String {
        // A string fragment always serialises.
        let data = try! JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    /// Parses the credential JSON (unknown fields ignored, as upstream's decoder does).
    public init(json data: Data) throws(CredentialError) {
        let parsed: Any
        do { parsed = try JSONSerialization.jsonObject(with: data) } catch { throw .malformedCredential("not JSON") }
        guard let object = parsed as? [String: Any] else { throw .malformedCredential("not a JSON object") }
        guard let keyIndex = object["badgeKeyIdx"] as? Int else {
            throw .malformedCredential("badgeKeyIdx must be an integer")
        }
        guard let masterText = object["masterKey"] as? String, let masterKey = Base64URL.decode(masterText) else {
            throw .malformedCredential("masterKey must be base64url")
        }
        guard masterKey.count == 32 else { throw .invalidMasterKey(byteCount: masterKey.count) }
        guard let sigText = object["signature"] as? String, let signature = Base64URL.decode(sigText) else {
            throw .malformedCredential("signature must be base64url")
        }
        guard signature.count == BBS.signatureByteCount else { throw .invalidSignatureLength(byteCount: signature.count) }
        guard let info = object["badgeInfo"] as? [String: Any] else { throw .malformedCredential("badgeInfo missing") }
        guard let type = info["badgeType"] as? String else { throw .malformedCredential("badgeInfo.badgeType missing") }
        guard let expiryText = info["badgeExpiry"] as? String, let expiry = RFC3339.parse(expiryText) else {
            throw .malformedCredential("badgeInfo.badgeExpiry must be an RFC 3339 timestamp")
        }
        guard let extra = info["badgeExtra"] as? String else { throw .malformedCredential("badgeInfo.badgeExtra missing") }
        self.init(keyIndex: keyIndex, masterKey: masterKey, signature: signature,
                  badgeType: BadgeType(type), expiry: expiry, extra: extra)
    }

    public init(jsonText: String) throws(CredentialError) {
        try self.init(json: Data(jsonText.utf8))
    }
}
