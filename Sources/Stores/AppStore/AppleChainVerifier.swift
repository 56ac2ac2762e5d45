import COpenSSL

/// Checks the leaf's signature against the x5c intermediate, then leaf ← intermediate ← one of
/// the configured roots with OpenSSL's `X509_STORE` in strict mode (`X509_V_FLAG_X509_STRICT`, as Apple's Python library does), at a given time,
/// then Apple's marker extensions and a P-256 leaf key (stores.md A4 steps 4–7).
/// `@unchecked Sendable`: the store is built once and only read; OpenSSL locks its own lookups.
final class AppleChainVerifier: @unchecked Sendable {
    /// Apple's receipt-signing marker on the leaf.
    static let leafMarkerOID = "1.2.840.113635.100.6.11.1"
    /// Apple's WWDR intermediate marker.
    static let intermediateMarkerOID = "1.2.840.113635.100.6.2.1"

    private let store: OpaquePointer
    private let roots: AppleRootCertificates

    init(roots: AppleRootCertificates) {
        self.roots = roots
        store = X509_STORE_new()!
        for root in roots.certificates { X509_STORE_add_cert(store, root.raw) }
    }

    deinit { X509_STORE_free(store) }

    /// The leaf's P-256 key once the chain holds at `seconds` (Unix time), judged in the spec's
    /// order: first the leaf's signature against the x5c intermediate's key, which no
    /// configuration can change — one that does not verify is receipt_invalid, one that key
    /// cannot check (another key type, an algorithm OpenSSL does not support) internal; then the
    /// chain to a configured root, the markers and the leaf key, each failure of which depends on
    /// this service's roots or knowledge (internal).
    func verify(leaf: X509Certificate, intermediate: X509Certificate, at seconds: Int64) throws(AppStoreRefusal) -> VerifiedLeaf {
        try checkLeafSignature(leaf, issuedBy: intermediate)
        guard let untrusted = OPENSSL_sk_new_null() else { throw .internal("OpenSSL allocation failed") }
        defer { OPENSSL_sk_free(untrusted) }
        guard OPENSSL_sk_push(untrusted, UnsafeRawPointer(intermediate.raw)) > 0 else { throw .internal("OpenSSL allocation failed") }
        guard let context = X509_STORE_CTX_new() else { throw .internal("OpenSSL allocation failed") }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf.raw, untrusted) == 1,
              let parameters = X509_STORE_CTX_get0_param(context)
        else { throw .internal("OpenSSL could not set up chain verification") }
        X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_X509_STRICT))
        X509_VERIFY_PARAM_set_time(parameters, time_t(seconds))

        guard X509_verify_cert(context) == 1 else {
            let error = X509_STORE_CTX_get_error(context)
            let depth = X509_STORE_CTX_get_error_depth(context)
            let text = String(cString: X509_verify_cert_error_string(Int(error)))
            if depth >= 1 && (error == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY || error == X509_V_ERR_CERT_SIGNATURE_FAILURE
                || error == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT) {
                throw .internal("the intermediate verifies against none of the configured roots (\(text))")
            }
            throw .internal("certificate chain refused at depth \(depth): \(text)")
        }
        // The chain must run leaf ← the x5c intermediate ← a root: a leaf issued by a root
        // directly would skip the intermediate whose marker is checked below.
        guard let chain = X509_STORE_CTX_get0_chain(context), OPENSSL_sk_num(chain) == 3,
              let middle = OPENSSL_sk_value(chain, 1),
              X509_cmp(OpaquePointer(middle), intermediate.raw) == 0
        else { throw .internal("the chain does not run through the x5c intermediate to a configured root") }

        guard leaf.hasNonCriticalExtension(Self.leafMarkerOID) else {
            throw .internal("the leaf lacks Apple's receipt-signing marker \(Self.leafMarkerOID)")
        }
        guard intermediate.hasNonCriticalExtension(Self.intermediateMarkerOID) else {
            throw .internal("the intermediate lacks Apple's marker \(Self.intermediateMarkerOID)")
        }
        guard leaf.p256PublicKey != nil else { throw .internal("the leaf key is not EC P-256") }
        return VerifiedLeaf(certificate: leaf)
    }

    /// `X509_verify` answers 1 for a signature that verifies, 0 for one that does not, and -1
    /// when it cannot check at all (an unknown signature algorithm, a key of another type, a
    /// signature that is not one DER value): only 0 is certain.
    private func checkLeafSignature(_ leaf: X509Certificate, issuedBy intermediate: X509Certificate) throws(AppStoreRefusal) {
        guard let key = X509_get0_pubkey(intermediate.raw) else {
            ERR_clear_error()
            throw .internal("the intermediate's key is of a type OpenSSL cannot read")
        }
        let result = X509_verify(leaf.raw, key)
        if result == 1 { return }
        ERR_clear_error()
        if result == 0 { throw .invalid("the leaf's signature does not verify against the intermediate") }
        throw .internal("the intermediate's key cannot check the leaf's signature")
    }
}

/// A leaf certificate whose chain verified and whose key is P-256.
struct VerifiedLeaf: Sendable {
    let certificate: X509Certificate

    /// Whether `signature`, raw `R||S` of 64 bytes (JOSE), is a valid ES256 signature of `message`.
    func isValidES256(signature: [UInt8], message: [UInt8]) -> Bool {
        guard signature.count == 64, let key = certificate.p256PublicKey else { return false }
        guard let der = Self.derSignature(rawRS: signature) else { return false }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return der.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { msg in
                EVP_DigestVerify(context, sig.baseAddress, sig.count, msg.baseAddress, msg.count) == 1
            }
        }
    }

    /// The DER `ECDSA-Sig-Value` of a raw `R||S` signature, as OpenSSL verifies it.
    private static func derSignature(rawRS: [UInt8]) -> [UInt8]? {
        guard let sig = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(sig) }
        let r = rawRS.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = rawRS.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        guard let r, let s else { BN_free(r); BN_free(s); return nil }
        guard ECDSA_SIG_set0(sig, r, s) == 1 else { BN_free(r); BN_free(s); return nil }
        let length = i2d_ECDSA_SIG(sig, nil)
        guard length > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: Int(length))
        let written = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_ECDSA_SIG(sig, &cursor)
        }
        return written == length ? out : nil
    }
}
