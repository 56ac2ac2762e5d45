import BadgeCore
import BBS

/// The issuer's BBS secret key. Its scalar lives in a `BBSSecretKey`, which wipes it when the
/// last reference goes; the public key is derived once at construction.
public final class IssuerSecretKey: Sendable {
    let key: BBSSecretKey
    /// The matching public key (SkToPk).
    public let publicKey: IssuerPublicKey

    private init(key: BBSSecretKey) {
        self.key = key
        publicKey = IssuerPublicKey(key: key.publicKey)
    }

    /// 32 bytes, validated as a scalar in [1, r-1].
    public convenience init(bytes: [UInt8]) throws(CredentialError) {
        do { self.init(key: try BBSSecretKey(bytes: bytes)) } catch { throw .invalidSecretKey }
    }

    /// Base64url (padded or not) of the 32-byte key, as `--issuer-secret` and key files hold it.
    /// The older 128-byte form sk ‖ pk is accepted when its public half matches.
    public convenience init(text: String) throws(CredentialError) {
        guard var bytes = Base64URL.decode(text.trimmingWhitespace) else { throw .invalidSecretKey }
        defer { wipe(&bytes) }
        switch bytes.count {
        case 32:
            try self.init(bytes: bytes)
        case 128:
            var secret = Array(bytes[0..<32])
            defer { wipe(&secret) }
            try self.init(bytes: secret)
            guard publicKey.bytes == Array(bytes[32...]) else { throw .invalidSecretKey }
        default:
            throw .invalidSecretKey
        }
    }

    /// A fresh key from the system CSPRNG.
    public static func generate() -> IssuerSecretKey { IssuerSecretKey(key: BBSSecretKey.generate()) }

    /// Base64url, padded: 44 characters. The string is a copy the caller should not keep around.
    public var text: String {
        var bytes = key.bytes
        defer { wipe(&bytes) }
        return Base64URL.encode(bytes)
    }
}

/// An issuer's BBS public key: 96-byte compressed G2, validated (curve, subgroup, not identity).
public struct IssuerPublicKey: Sendable, Hashable, CustomStringConvertible {
    let key: BBSPublicKey

    init(key: BBSPublicKey) { self.key = key }

    public init(bytes: [UInt8]) throws(CredentialError) {
        do { key = try BBSPublicKey(bytes: bytes) } catch { throw .invalidPublicKey(reason: "\(error)") }
    }

    /// Base64url of the 96 bytes (128 characters; padding optional on input).
    public init(text: String) throws(CredentialError) {
        guard let bytes = Base64URL.decode(text.trimmingWhitespace) else { throw .invalidPublicKey(reason: "not base64url") }
        try self.init(bytes: bytes)
    }

    public var bytes: [UInt8] { key.bytes }

    /// Base64url, 128 characters.
    public var text: String { Base64URL.encode(key.bytes) }

    public var description: String { text }

    public static func == (a: IssuerPublicKey, b: IssuerPublicKey) -> Bool { a.bytes == b.bytes }
    public func hash(into hasher: inout Hasher) { hasher.combine(bytes) }
}

extension String {
    var trimmingWhitespace: String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}
