import BadgeCore
import Crypto

/// Purchase keys as text: base64url of the 44-byte Ed25519 SubjectPublicKeyInfo DER.
public enum PurchaseKey {
    /// The key only if `text` is exactly the canonical spelling (padded, 60 characters), as
    /// `keyid` and `Badge-Signer-Key` must be (docs/protocol.md, Authentication).
    public static func parseCanonical(_ text: String) -> Ed25519PublicKey? {
        guard let key = parse(text), key.purchaseKeyText == text else { return nil }
        return key
    }

    /// The key for any spelling the envelope decoder accepts (padded or unpadded base64url).
    public static func parse(_ text: String) -> Ed25519PublicKey? {
        guard let der = Base64URL.decode(text) else { return nil }
        return Ed25519PublicKey(spki: der)
    }

    /// Whether the envelope's `purchaseKey` text names `key`.
    ///
    /// Compares decoded SPKI bytes, not text: upstream compares decoded keys, and its JSON
    /// decoder accepts unpadded base64url, so an unpadded `purchaseKey` is the same key.
    public static func matches(_ purchaseKey: String, _ key: Ed25519PublicKey) -> Bool {
        guard let claimed = parse(purchaseKey) else { return false }
        return constantTimeEquals(claimed.spki, key.spki)
    }
}
