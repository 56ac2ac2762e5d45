import BadgeCore
import Foundation

/// What the `issuer …` CLI commands do, so each command in the executable is a few lines.
public enum IssuerCommands {
    /// `issuer keygen`: a fresh secret and its public key, both as base64url text.
    public static func keygen() -> (secretKey: String, publicKey: String) {
        let key = IssuerSecretKey.generate()
        return (key.text, key.publicKey.text)
    }

    /// `issuer sign --secret-key K --index N --master-key M --expiry TS --type T`: credential JSON.
    public static func sign(secretKey: String, index: Int, masterKey: String, expiry: String, type: String) throws(CredentialError) -> String {
        let signer = try BadgeCredentialSigner(keyIndex: index, secretKey: try IssuerSecretKey(text: secretKey))
        guard let master = Base64URL.decode(masterKey) else { throw .malformedCredential("master key must be base64url") }
        guard let timestamp = RFC3339.parse(expiry) else { throw .malformedCredential("expiry must be an RFC 3339 timestamp") }
        return try signer.sign(masterKey: master, expiry: timestamp, badgeType: BadgeType(type)).jsonText()
    }

    /// `issuer verify --public-key PK --credential FILE`: whether the credential JSON verifies.
    public static func verify(publicKey: String, credentialJSON: Data) throws(CredentialError) -> Bool {
        try BadgeCredential(json: credentialJSON).isValid(under: try IssuerPublicKey(text: publicKey))
    }

    /// `issuer show`: the public keys by index, as clients configure them:
    /// `{"active": N, "keys": {"N": "<public key>", …}}`.
    public static func show(_ keyring: IssuerKeyring) -> String {
        let keys = keyring.publicKeysByIndex.keys.sorted().map { "\"\($0)\": \"\(keyring.publicKeysByIndex[$0]!.text)\"" }
        return "{\"active\": \(keyring.activeIndex), \"keys\": {\(keys.joined(separator: ", "))}}"
    }
}
