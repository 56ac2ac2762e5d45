import COpenSSL

/// RSASSA-PKCS1-v1_5 with SHA-256 (JWS `RS256`) over OpenSSL, from a PEM private key.
/// `@unchecked Sendable`: the key is read-only after init, and OpenSSL signs with a fresh
/// context per call.
final class RS256Signer: @unchecked Sendable {
    private let key: OpaquePointer

    struct Failure: Error { let reason: String }

    init(pem: String) throws(Failure) {
        let bytes = Array(pem.utf8)
        let parsed: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        ERR_clear_error()
        guard let parsed else { throw Failure(reason: "is not a PEM private key") }
        guard EVP_PKEY_get_base_id(parsed) == NID_rsaEncryption else {
            EVP_PKEY_free(parsed)
            throw Failure(reason: "is not an RSA key")
        }
        guard EVP_PKEY_get_bits(parsed) >= 2048 else {
            EVP_PKEY_free(parsed)
            throw Failure(reason: "is an RSA key shorter than 2048 bits")
        }
        key = parsed
    }

    deinit { EVP_PKEY_free(key) }

    /// The signature of `message`; nil only if OpenSSL fails.
    func sign(_ message: [UInt8]) -> [UInt8]? {
        guard let ctx = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestSignInit(ctx, nil, EVP_sha256(), nil, key) == 1 else { ERR_clear_error(); return nil }
        var length = 0
        let sized = message.withUnsafeBufferPointer { EVP_DigestSign(ctx, nil, &length, $0.baseAddress, $0.count) }
        guard sized == 1, length > 0 else { ERR_clear_error(); return nil }
        var signature = [UInt8](repeating: 0, count: length)
        let signed = signature.withUnsafeMutableBufferPointer { out in
            message.withUnsafeBufferPointer { EVP_DigestSign(ctx, out.baseAddress, &length, $0.baseAddress, $0.count) }
        }
        guard signed == 1 else { ERR_clear_error(); return nil }
        return Array(signature.prefix(length))
    }
}
