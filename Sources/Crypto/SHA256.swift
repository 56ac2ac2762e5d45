import COpenSSL

/// SHA-256 through OpenSSL's EVP interface.
public struct SHA256: Sendable {
    /// Digest length in bytes.
    public static let byteCount = 32

    /// The digest of `data` in one call (one `EVP_Digest`: no context to allocate and copy).
    public static func hash(_ data: some Collection<UInt8>) -> [UInt8] {
        func digest(_ buffer: UnsafeBufferPointer<UInt8>) -> [UInt8] {
            [UInt8](unsafeUninitializedCapacity: byteCount) { out, count in
                var length: UInt32 = 0
                precondition(EVP_Digest(buffer.baseAddress, buffer.count, out.baseAddress, &length, fetchedSHA256, nil) == 1,
                             "EVP_Digest failed")
                count = Int(length)
            }
        }
        if let result = data.withContiguousStorageIfAvailable(digest) { return result }
        return Array(data).withUnsafeBufferPointer(digest)
    }

    private var ctx: EVPContext

    public init() {
        ctx = EVPContext(fetchedSHA256)
    }

    /// Feeds more input.
    public mutating func update(_ data: some Collection<UInt8>) {
        if !isKnownUniquelyReferenced(&ctx) { ctx = ctx.copy() }
        ctx.update(data)
    }

    /// The digest of everything fed so far; the hasher can keep going afterwards.
    public func finalize() -> [UInt8] { ctx.copy().final() }
}

/// OpenSSL's SHA-256, fetched once: `EVP_sha256()` has OpenSSL 3 look the implementation up
/// again (a lock and a walk of its method store) in every digest, once per signed request.
/// `nonisolated(unsafe)`: written once at first use; an `EVP_MD` is immutable and thread-safe.
nonisolated(unsafe) private let fetchedSHA256: OpaquePointer = {
    guard let md = EVP_MD_fetch(nil, "SHA2-256", nil) else { fatalError("OpenSSL has no SHA2-256") }
    return md
}()

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
        let done: Void? = data.withContiguousStorageIfAvailable { buf in
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
