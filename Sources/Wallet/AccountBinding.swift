import BadgeCore
import Crypto

/// The account a store purchase was made for: the app sets a UUID derived from the wallet
/// account's key when it buys (StoreKit's `appAccountToken`, Play's `setObfuscatedAccountId`),
/// and the store's record carries it back, so a purchase presented by another account is told
/// apart even by someone who learnt its transaction id.
public enum AccountBinding {
    /// Put before the key, so this UUID is never the hash of the key used for something else.
    public static let domain: [UInt8] = Array("simplex-coin-wallet-account-v1:".utf8)

    /// The UUID of `account` (the canonical purchase key text: base64url of the Ed25519 key's
    /// SPKI DER): the first 16 bytes of SHA-256(``domain`` ‖ the raw 32-byte public key), marked
    /// as an RFC 9562 version 8 UUID, lower case. nil for a text that is not such a key.
    public static func uuid(account: String) -> String? {
        guard let spki = Base64URL.decode(account), let key = Ed25519PublicKey(spki: spki) else { return nil }
        return uuid(rawPublicKey: key.raw)
    }

    /// The UUID of a raw 32-byte Ed25519 public key, as ``uuid(account:)`` derives it.
    public static func uuid(rawPublicKey: [UInt8]) -> String {
        var bytes = Array(SHA256.hash(domain + rawPublicKey).prefix(16))
        bytes[6] = (bytes[6] & 0x0f) | 0x80  // version 8: a custom, name-based UUID
        bytes[8] = (bytes[8] & 0x3f) | 0x80  // the RFC variant
        let digits = Array("0123456789abcdef")
        var text = ""
        for (i, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(i) { text.append("-") }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return text
    }

    /// Judges the token a store's record carries against `account`: absent passes unless
    /// `required` (receipt_invalid: nothing shows whose purchase it is); another account's is
    /// receipt_used, as a purchase another account presented first.
    static func check(_ token: String?, account: String, required: Bool, field: String) throws(WalletRefusal) {
        guard let token else {
            if required {
                throw WalletRefusal(.receiptInvalid, "the store's record carries no \(field) and [wallet] require_account_binding is on")
            }
            return
        }
        // UUIDs compare without regard to case (Swift's uuidString is upper case, Apple's JSON lower).
        guard let own = uuid(account: account), token.lowercased() == own else {
            throw WalletRefusal(.receiptUsed, "this purchase was made for another account (its \(field) names another)")
        }
    }
}
