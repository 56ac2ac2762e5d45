import COpenSSL

/// SHA-256 through OpenSSL's EVP interface.
public struct SHA256: Sendable {
    /// Digest length in bytes.
    public static let byteCount = 32

    /// The digest of `data` in one call.
    public static func hash(_ data: some Collection<UInt8>) -> [UInt8] {
        var h = SHA256()
        h.update(data)
        return h.finalize()
    }

    private var ctx: EVPContext

    public init() {
        ctx = EVPContext(EVP_sha256())
    }

    /// Feeds more input.
    public mutating func update(_ data: some Collection<UInt8>) {
        if !isKnownUniquelyReferenced(&ctx) { ctx = ctx.copy() }
        ctx.update(data)
    }

    /// The digest of everything fed so far; the hasher can keep going afterwards.
    public func finalize() -> [UInt8] { ctx.copy().final() }
}

/// SHA-512, for RFC 9530 `Content-Digest: sha-512` and Ed25519 tooling.
public enum SHA512 {
    public static func hash(_ data: some Collection<UInt8>) -> [UInt8] {
        let ctx = EVPContext(EVP_sha512())
        ctx.update(data)
        return ctx.final()
    }
}

/// Owns one EVP_MD_CTX; copied on write by the hashers that wrap it.
/// `@unchecked Sendable`: a hasher copies the context before mutating a shared one
/// (`isKnownUniquelyReferenced`), so one context is never written from two threads.
final class EVPContext: @unchecked Sendable {
    let raw: OpaquePointer

    init(_ md: OpaquePointer?) {
        raw = EVP_MD_CTX_new()!
        precondition(EVP_DigestInit_ex(raw, md, nil) == 1, "EVP_DigestInit_ex failed")
    }

    private init(copying other: EVPContext) {
        raw = EVP_MD_CTX_new()!
        precondition(EVP_MD_CTX_copy_ex(raw, other.raw) == 1, "EVP_MD_CTX_copy_ex failed")
    }

    func copy() -> EVPContext { EVPContext(copying: self) }

    func update(_ data: some Collection<UInt8>) {
        let done = data.withContiguousStorageIfAvailable { buf in
            precondition(EVP_DigestUpdate(raw, buf.baseAddress, buf.count) == 1)
        }
        if done == nil {
            let bytes = Array(data)
            bytes.withUnsafeBufferPointer { buf in
                precondition(EVP_DigestUpdate(raw, buf.baseAddress, buf.count) == 1)
            }
        }
    }

    func final() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var len: UInt32 = 0
        precondition(EVP_DigestFinal_ex(raw, &out, &len) == 1)
        return Array(out.prefix(Int(len)))
    }

    deinit { EVP_MD_CTX_free(raw) }
}
