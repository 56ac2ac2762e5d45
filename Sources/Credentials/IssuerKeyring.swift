import BadgeCore
import Foundation
import JSON

/// The issuer keys by index (1 … 8), exactly one of them active for signing.
///
/// Constructing a keyring checks every secret against the public key configured for its index
/// and throws `CredentialError.publicKeyMismatch` on a difference, so a service with a wrong
/// secret refuses to start rather than issue credentials no client accepts.
///
/// Key file (`issuer-keys.json` in the data directory, mode 0600):
///
///     {"active": 1,
///      "keys": {"1": {"secretKey": "<base64url, 44 chars>", "publicKey": "<base64url, 128 chars>"},
///               "2": {"publicKey": "<base64url, 128 chars>"}}}
///
/// `secretKey` is optional except for the active index (older keys may be kept public-only, to
/// verify what they signed); `publicKey` is optional when `secretKey` is present (then derived).
public struct IssuerKeyring: Sendable {
    /// Valid issuer key indexes: released clients ship keys 1 … 8.
    public static let indexRange = 1...8

    /// One index's keys.
    public struct Entry: Sendable {
        public let publicKey: IssuerPublicKey
        public let secretKey: IssuerSecretKey?
    }

    public let activeIndex: Int
    public let entries: [Int: Entry]
    /// Signs with the active key.
    public let signer: BadgeCredentialSigner

    /// Checks indexes, that the active index has a secret, and that each secret derives the
    /// public key configured beside it (when one is configured).
    public init(active: Int, keys: [Int: (secretKey: IssuerSecretKey?, publicKey: IssuerPublicKey?)]) throws(CredentialError) {
        var entries = [Int: Entry]()
        for (index, pair) in keys {
            guard Self.indexRange.contains(index) else { throw .invalidKeyIndex(index) }
            switch (pair.secretKey, pair.publicKey) {
            case let (secret?, configured?):
                guard secret.publicKey == configured else {
                    throw .publicKeyMismatch(index: index, derived: secret.publicKey.text, configured: configured.text)
                }
                entries[index] = Entry(publicKey: configured, secretKey: secret)
            case let (secret?, nil):
                entries[index] = Entry(publicKey: secret.publicKey, secretKey: secret)
            case let (nil, configured?):
                entries[index] = Entry(publicKey: configured, secretKey: nil)
            case (nil, nil):
                throw .malformedKeyFile("index \(index) has neither secretKey nor publicKey")
            }
        }
        guard Self.indexRange.contains(active) else { throw .invalidKeyIndex(active) }
        guard let secret = entries[active]?.secretKey else { throw .noActiveSigningKey(index: active) }
        activeIndex = active
        self.entries = entries
        signer = try BadgeCredentialSigner(keyIndex: active, secretKey: secret)
    }

    /// A keyring holding one signing key at `index`.
    public init(index: Int, secretKey: IssuerSecretKey) throws(CredentialError) {
        try self.init(active: index, keys: [index: (secretKey, nil)])
    }

    /// The public keys clients need, by index (what `issuer show` prints).
    public var publicKeysByIndex: [Int: IssuerPublicKey] { entries.mapValues(\.publicKey) }

    /// Signs with the active key; see `BadgeCredentialSigner.sign`.
    public func sign(masterKey: [UInt8], expiry: Timestamp, badgeType: BadgeType) throws(CredentialError) -> BadgeCredential {
        try signer.sign(masterKey: masterKey, expiry: expiry, badgeType: badgeType)
    }

    /// The indexes, in order, whose public key is another in `next`: a reload refuses them,
    /// since a key changed under an index in use would invalidate every credential it signed.
    public func changedIndexes(in next: IssuerKeyring) -> [Int] {
        entries.keys.sorted().filter { index in
            guard let replacement = next.entries[index] else { return false }
            return replacement.publicKey != entries[index]!.publicKey
        }
    }

    /// Whether `credential` verifies under the key its `keyIndex` names (false for unknown indexes).
    public func verify(_ credential: BadgeCredential) -> Bool {
        guard let key = entries[credential.keyIndex]?.publicKey else { return false }
        return credential.isValid(under: key)
    }
}

extension IssuerKeyring {
    /// Parses the key file format described on the type.
    public init(json bytes: [UInt8]) throws(CredentialError) {
        var texts = [Int: (secretKey: String?, publicKey: String?)]()
        let active: Int
        do {
            let file = try JSONObjectReader(try JSONValue.parse(bytes))
            active = try file.int("active")
            let keys = try file.nested("keys")
            for member in keys.object {
                guard let index = Int(member.key), String(index) == member.key else {
                    throw keys.fail(member.key, "key index \"\(member.key)\" is not an integer")
                }
                let entry = try keys.nested(member.key)
                texts[index] = (try entry.optionalString("secretKey"), try entry.optionalString("publicKey"))
            }
        } catch {
            throw .malformedKeyFile("\(error)")
        }
        var pairs = [Int: (secretKey: IssuerSecretKey?, publicKey: IssuerPublicKey?)]()
        for (index, text) in texts {
            var secret: IssuerSecretKey?
            var publicKey: IssuerPublicKey?
            if let t = text.secretKey { secret = try IssuerSecretKey(text: t) }
            if let t = text.publicKey { publicKey = try IssuerPublicKey(text: t) }
            pairs[index] = (secret, publicKey)
        }
        try self.init(active: active, keys: pairs)
    }

    /// The key file's JSON (secrets included): indexes in order, each key's members sorted.
    public var json: JSONValue {
        var keys = JSONObject()
        for index in entries.keys.sorted() {
            let entry = entries[index]!
            var e = JSONObject()
            e["publicKey"] = .string(entry.publicKey.text)
            if let secret = entry.secretKey { e["secretKey"] = .string(secret.text) }
            keys[String(index)] = .object(e)
        }
        return ["active": .number(JSONNumber(activeIndex)), "keys": .object(keys)]
    }

    /// Reads and validates a key file.
    public static func load(from url: URL) throws -> IssuerKeyring {
        try IssuerKeyring(json: Array(try Data(contentsOf: url)))
    }

    /// The key file's bytes: `json` indented, with a final newline. The CLI writes them
    /// (atomically, 0600), since only it knows how the file is deployed.
    public var fileBytes: [UInt8] { json.serialized(.indented) + [0x0A] }
}
