import COpenSSL

/// One DER certificate parsed by OpenSSL; owns its `X509`.
/// `@unchecked Sendable`: the certificate is never modified after parsing, and OpenSSL reads
/// of an `X509` are thread-safe.
final class X509Certificate: @unchecked Sendable {
    let raw: OpaquePointer

    /// Parses exactly one DER certificate; nil when the bytes are not one (trailing bytes included).
    init?(der: [UInt8]) {
        var parsed: OpaquePointer?
        var consumed = 0
        der.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var cursor: UnsafePointer<UInt8>? = base
            parsed = d2i_X509(nil, &cursor, buffer.count)
            if let cursor { consumed = cursor - base }
        }
        guard let parsed else { return nil }
        guard consumed == der.count else { X509_free(parsed); return nil }
        raw = parsed
    }

    deinit { X509_free(raw) }

    /// Whether the certificate carries the extension `oid` (dotted text), non-critical.
    /// Apple's libraries check presence only; OpenSSL's strict mode refuses a critical one it
    /// does not know, so a critical marker never gets this far.
    func hasNonCriticalExtension(_ oid: String) -> Bool {
        guard let object = OBJ_txt2obj(oid, 1) else { return false }
        defer { ASN1_OBJECT_free(object) }
        let index = X509_get_ext_by_OBJ(raw, object, -1)
        guard index >= 0, let ext = X509_get_ext(raw, index) else { return false }
        return X509_EXTENSION_get_critical(ext) == 0
    }

    /// The public key, when it is an EC key on P-256; nil for any other key.
    var p256PublicKey: OpaquePointer? {
        guard let key = X509_get0_pubkey(raw), EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else { return nil }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else { return nil }
        let group = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return group == "prime256v1" ? key : nil
    }

    func isSameCertificate(as other: X509Certificate) -> Bool { X509_cmp(raw, other.raw) == 0 }
}
