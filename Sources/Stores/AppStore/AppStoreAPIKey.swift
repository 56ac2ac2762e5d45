import BadgeCore
import COpenSSL
import JSON

/// The App Store Connect In-App Purchase key the App Store Server API authenticates
/// (stores.md A7): its `.p8` (PKCS#8 PEM, EC P-256), key id and issuer id, and the app's bundle id.
/// `@unchecked Sendable`: the key is never modified after loading; OpenSSL signs with a
/// const key from several threads.
public final class AppStoreAPIKey: @unchecked Sendable {
    public let keyId: String
    public let issuerId: String
    public let bundleId: String
    private let key: OpaquePointer

    /// Why a `.p8` was refused (the caller names the file).
    public struct LoadError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    public init(p8 pem: [UInt8], keyId: String, issuerId: String, bundleId: String) throws(LoadError) {
        let parsed: OpaquePointer? = pem.withUnsafeBytes { bytes in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let parsed else { throw LoadError(description: "not a PEM private key (an App Store Connect .p8 file)") }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_base_id(parsed) == EVP_PKEY_EC, EVP_PKEY_get_group_name(parsed, &name, name.count, &length) == 1,
              String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1"
        else {
            EVP_PKEY_free(parsed)
            throw LoadError(description: "not an EC P-256 key, as App Store Connect issues")
        }
        key = parsed
        self.keyId = keyId
        self.issuerId = issuerId
        self.bundleId = bundleId
    }

    deinit { EVP_PKEY_free(key) }

    /// Tokens live five minutes, as Apple's libraries mint them; one is made for every call.
    public static let tokenLifetimeSeconds: Int64 = 300

    /// A bearer token for a call at `now`: ES256 with `kid`, claims `iss`, `iat`, `exp`,
    /// `aud` appstoreconnect-v1 and `bid`.
    public func token(at now: Timestamp) throws(LoadError) -> String {
        let header: JSONValue = ["alg": "ES256", "kid": .string(keyId), "typ": "JWT"]
        let claims: JSONValue = [
            "iss": .string(issuerId), "iat": .number(JSONNumber(Int(now.seconds))),
            "exp": .number(JSONNumber(Int(now.seconds + Self.tokenLifetimeSeconds))), "aud": "appstoreconnect-v1",
            "bid": .string(bundleId),
        ]
        let input = Base64URL.encode(header.serialized(), padded: false) + "." + Base64URL.encode(claims.serialized(), padded: false)
        guard let signature = sign(Array(input.utf8)) else { throw LoadError(description: "OpenSSL could not sign the API token") }
        return input + "." + Base64URL.encode(signature, padded: false)
    }

    /// The raw `R||S` ES256 signature of `message`.
    private func sign(_ message: [UInt8]) -> [UInt8]? {
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { return nil }
        var length = 0
        guard message.withUnsafeBufferPointer({ EVP_DigestSign(context, nil, &length, $0.baseAddress, $0.count) }) == 1 else { return nil }
        var der = [UInt8](repeating: 0, count: length)
        guard message.withUnsafeBufferPointer({ m in
            der.withUnsafeMutableBufferPointer { EVP_DigestSign(context, $0.baseAddress, &length, m.baseAddress, m.count) }
        }) == 1 else { return nil }
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, length)
        }
        guard let sig = parsed else { return nil }
        defer { ECDSA_SIG_free(sig) }
        var out = [UInt8](repeating: 0, count: 64)
        let ok = out.withUnsafeMutableBufferPointer { buffer -> Bool in
            BN_bn2binpad(ECDSA_SIG_get0_r(sig), buffer.baseAddress, 32) == 32
                && BN_bn2binpad(ECDSA_SIG_get0_s(sig), buffer.baseAddress! + 32, 32) == 32
        }
        return ok ? out : nil
    }
}
