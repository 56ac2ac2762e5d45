import BadgeCore
import COpenSSL

/// Ed25519 keys and signatures (RFC 8032) through OpenSSL.
///
/// Purchase keys travel as the 44-byte X.509 SubjectPublicKeyInfo DER of the raw 32-byte key;
/// ``Ed25519PublicKey/spki`` and ``Ed25519PublicKey/init(spki:)`` convert.
public struct Ed25519PublicKey: Hashable, Sendable {
    /// DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410).
    public static let spkiPrefix: [UInt8] = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]

    /// The raw 32-byte key.
    public let raw: [UInt8]

    public init?(raw: [UInt8]) {
        guard raw.count == 32 else { return nil }
        self.raw = raw
    }

    /// Reads the 44-byte SubjectPublicKeyInfo DER; nil for anything else.
    public init?(spki: [UInt8]) {
        guard spki.count == 44, Array(spki.prefix(12)) == Ed25519PublicKey.spkiPrefix else { return nil }
        raw = Array(spki.suffix(32))
    }

    /// The 44-byte SubjectPublicKeyInfo DER.
    public var spki: [UInt8] { Ed25519PublicKey.spkiPrefix + raw }

    /// The key as the protocol spells it: base64url, padded, of the SPKI DER (60 characters).
    public var purchaseKeyText: String { Base64URL.encode(spki) }

    /// Whether `signature` (64 bytes) is valid for `message` under this key: the Swift
    /// verification, which accepts exactly what OpenSSL 3 accepts, in about half its time.
    public func isValidSignature(_ signature: [UInt8], for message: some Collection<UInt8>) -> Bool {
        func verify(_ message: UnsafeRawBufferPointer) -> Bool {
            raw.withUnsafeBytes { key in
                signature.withUnsafeBytes { Ed25519Verification.isValid(signature: $0, message: message, publicKey: key) }
            }
        }
        if let verdict = message.withContiguousStorageIfAvailable({ verify(UnsafeRawBufferPointer($0)) }) { return verdict }
        return Array(message).withUnsafeBytes(verify)
    }

    /// The same verdict through OpenSSL's EVP verify: the reference the Swift verification
    /// (`Ed25519Verification`) is tested and benchmarked against.
    package func isValidSignatureOpenSSL(_ signature: [UInt8], for message: some Collection<UInt8>) -> Bool {
        guard signature.count == 64 else { return false }
        guard let pkey = raw.withUnsafeBufferPointer({
            EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, $0.baseAddress, 32)
        }) else { return false }
        defer { EVP_PKEY_free(pkey) }
        guard let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, nil, nil, pkey) == 1 else { return false }
        let msg = Array(message)
        return msg.withUnsafeBufferPointer { mb in
            signature.withUnsafeBufferPointer { sb in
                EVP_DigestVerify(ctx, sb.baseAddress, 64, mb.baseAddress, mb.count) == 1
            }
        }
    }
}

/// An Ed25519 private key (its 32-byte seed). The seed is wiped when the key is dropped.
/// `@unchecked Sendable`: `seedBytes` is a var only so `deinit` can wipe it; nothing else writes it.
public final class Ed25519PrivateKey: @unchecked Sendable {
    private var seedBytes: [UInt8]
    /// The matching public key.
    public let publicKey: Ed25519PublicKey

    /// A fresh key from the CSPRNG.
    public convenience init() {
        try! self.init(seed: SecureRandom.bytes(32))
    }

    /// The key with the given 32-byte seed.
    public init(seed: [UInt8]) throws {
        guard seed.count == 32 else { throw Ed25519Error.invalidKeyLength }
        seedBytes = seed
        guard let pkey = seed.withUnsafeBufferPointer({
            EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, $0.baseAddress, 32)
        }) else { throw Ed25519Error.openSSL }
        defer { EVP_PKEY_free(pkey) }
        var pub = [UInt8](repeating: 0, count: 32)
        var len = 32
        guard EVP_PKEY_get_raw_public_key(pkey, &pub, &len) == 1, len == 32 else { throw Ed25519Error.openSSL }
        publicKey = Ed25519PublicKey(raw: pub)!
    }

    /// The 32-byte seed, for saving the key to a file.
    public var seed: [UInt8] { seedBytes }

    /// The 64-byte signature of `message`.
    public func signature(for message: some Collection<UInt8>) -> [UInt8] {
        let pkey = seedBytes.withUnsafeBufferPointer {
            EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, $0.baseAddress, 32)
        }!
        defer { EVP_PKEY_free(pkey) }
        let ctx = EVP_MD_CTX_new()!
        defer { EVP_MD_CTX_free(ctx) }
        precondition(EVP_DigestSignInit(ctx, nil, nil, nil, pkey) == 1)
        var sig = [UInt8](repeating: 0, count: 64)
        var sigLen = 64
        let msg = Array(message)
        let ok = msg.withUnsafeBufferPointer { mb in
            EVP_DigestSign(ctx, &sig, &sigLen, mb.baseAddress, mb.count)
        }
        precondition(ok == 1 && sigLen == 64, "Ed25519 signing failed")
        return sig
    }

    deinit {
        for i in seedBytes.indices { seedBytes[i] = 0 }
    }
}

/// Why an Ed25519 key could not be made.
public enum Ed25519Error: Error, Equatable {
    case invalidKeyLength
    case openSSL
}
