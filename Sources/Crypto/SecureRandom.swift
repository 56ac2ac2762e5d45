import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's CSPRNG.
public enum SecureRandom {
    /// `count` random bytes; traps if the CSPRNG fails, as no caller can continue safely.
    public static func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        if count > 0 {
            precondition(RAND_bytes(&out, Int32(count)) == 1, "RAND_bytes failed")
        }
        return out
    }
}
