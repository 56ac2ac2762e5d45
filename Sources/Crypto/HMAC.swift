import COpenSSL

/// HMAC-SHA256 (webhook signatures, keyed hashes).
public enum HMACSHA256 {
    public static func authenticate(_ message: some Collection<UInt8>, key: some Collection<UInt8>) -> [UInt8] {
        let k = Array(key)
        let m = Array(message)
        var out = [UInt8](repeating: 0, count: 32)
        var len: UInt32 = 0
        k.withUnsafeBufferPointer { kb in
            m.withUnsafeBufferPointer { mb in
                _ = COpenSSL.HMAC(EVP_sha256(), kb.baseAddress, Int32(kb.count), mb.baseAddress, mb.count, &out, &len)
            }
        }
        precondition(len == 32, "HMAC failed")
        return out
    }
}

/// Comparison whose duration does not depend on where the inputs differ.
public func constantTimeEquals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
    let x = Array(a), y = Array(b)
    guard x.count == y.count else { return false }
    var diff: UInt8 = 0
    for i in 0..<x.count { diff |= x[i] ^ y[i] }
    return diff == 0
}
