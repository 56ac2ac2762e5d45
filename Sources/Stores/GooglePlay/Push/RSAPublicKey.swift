import COpenSSL

/// An RSA public key of a JWK (`n`, `e`), for RS256 verification over OpenSSL.
/// `@unchecked Sendable`: the key is read-only after init; each check uses a fresh context.
final class RSAPublicKey: @unchecked Sendable {
    private let key: OpaquePointer

    /// Nil when the modulus and exponent make no RSA key OpenSSL accepts, or one under 2048 bits.
    init?(modulus: [UInt8], exponent: [UInt8]) {
        guard !modulus.isEmpty, !exponent.isEmpty else { return nil }
        // SubjectPublicKeyInfo { AlgorithmIdentifier rsaEncryption NULL, BIT STRING RSAPublicKey { n, e } }.
        let rsaEncryption: [UInt8] = [0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00]
        let rsaKey = DER.sequence(DER.integer(modulus) + DER.integer(exponent))
        let spki = DER.sequence(rsaEncryption + DER.tagged(0x03, [0x00] + rsaKey))
        let parsed: OpaquePointer? = spki.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        ERR_clear_error()
        guard let parsed else { return nil }
        guard EVP_PKEY_get_base_id(parsed) == NID_rsaEncryption, EVP_PKEY_get_bits(parsed) >= 2048 else {
            EVP_PKEY_free(parsed)
            return nil
        }
        key = parsed
    }

    deinit { EVP_PKEY_free(key) }

    /// Whether `signature` is an RSASSA-PKCS1-v1_5 SHA-256 signature of `message` by this key.
    func isValidRS256(signature: [UInt8], message: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { ERR_clear_error(); return false }
        let valid = signature.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { msg in
                EVP_DigestVerify(context, sig.baseAddress, sig.count, msg.baseAddress, msg.count) == 1
            }
        }
        ERR_clear_error()
        return valid
    }
}

/// The few DER encodings a SubjectPublicKeyInfo needs.
enum DER {
    static func tagged(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] { [tag] + length(content.count) + content }
    static func sequence(_ content: [UInt8]) -> [UInt8] { tagged(0x30, content) }

    /// A non-negative INTEGER from big-endian bytes: leading zeros dropped, one added when the
    /// top bit is set.
    static func integer(_ bytes: [UInt8]) -> [UInt8] {
        var value = Array(bytes.drop { $0 == 0 })
        if value.isEmpty { value = [0] }
        if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        return tagged(0x02, value)
    }

    static func length(_ n: Int) -> [UInt8] {
        if n < 0x80 { return [UInt8(n)] }
        var bytes: [UInt8] = []
        var rest = n
        while rest > 0 { bytes.insert(UInt8(rest & 0xff), at: 0); rest >>= 8 }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}
