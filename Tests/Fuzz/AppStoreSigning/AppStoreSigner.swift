import BadgeCore
import COpenSSL
import JSON

/// Signs App Store payloads as StoreKit 2 does (compact JWS, ES256 with a raw `R||S`
/// signature, `x5c` leaf, intermediate, root) with the throw-away test PKI in
/// `AppStorePKI.swift`, so that a harness can hand the verifier payloads the fuzzer wrote and
/// reach the decoding behind the signature check.
public final class AppStoreSigner: @unchecked Sendable {
    /// The verifier's trust anchor: the test PKI's root, DER.
    public let rootDER: [UInt8]
    public let bundleId = AppStorePKI.bundleId
    private let x5c: [String]
    private let key: OpaquePointer

    public init() {
        rootDER = Base64URL.decodeStandard(AppStorePKI.root)!
        x5c = [AppStorePKI.leaf, AppStorePKI.intermediate, AppStorePKI.root]
        // The BIO reads the PEM in place: the bytes must outlive it.
        key = Array(AppStorePKI.leafKeyPEM.utf8).withUnsafeBytes { pem in
            let bio = BIO_new_mem_buf(pem.baseAddress, Int32(pem.count))
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)!
        }
    }

    deinit { EVP_PKEY_free(key) }

    /// The compact JWS of `payload` (its bytes as they are, JSON or not) under `header`, or
    /// under the PKI's ES256 header with its x5c when `header` is nil.
    public func jws(payload: [UInt8], header: [UInt8]? = nil) -> String {
        let headerBytes = header ?? JSONValue.object(["alg": "ES256", "x5c": .array(x5c.map { .string($0) })]).serialized()
        let signingInput = Base64URL.encode(headerBytes, padded: false) + "." + Base64URL.encode(payload, padded: false)
        return signingInput + "." + Base64URL.encode(sign(Array(signingInput.utf8)), padded: false)
    }

    /// ES256 over `message`, as the 64 bytes `R||S`.
    func sign(_ message: [UInt8]) -> [UInt8] {
        let context = EVP_MD_CTX_new()
        defer { EVP_MD_CTX_free(context) }
        precondition(EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1)
        var length = 0
        precondition(message.withUnsafeBufferPointer { EVP_DigestSign(context, nil, &length, $0.baseAddress, $0.count) } == 1)
        var der = [UInt8](repeating: 0, count: length)
        precondition(der.withUnsafeMutableBufferPointer { out in
            message.withUnsafeBufferPointer { EVP_DigestSign(context, out.baseAddress, &length, $0.baseAddress, $0.count) }
        } == 1)
        let signature = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, length)
        }!
        defer { ECDSA_SIG_free(signature) }
        var raw = [UInt8](repeating: 0, count: 64)
        raw.withUnsafeMutableBufferPointer { out in
            _ = BN_bn2binpad(ECDSA_SIG_get0_r(signature), out.baseAddress, 32)
            _ = BN_bn2binpad(ECDSA_SIG_get0_s(signature), out.baseAddress! + 32, 32)
        }
        return raw
    }
}
