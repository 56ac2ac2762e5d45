// Fr beyond the generated core: scalar encodings, reduction of hash output, inversion.
// Arithmetic and inversion run in time independent of the values (secret keys live here).

extension Fr: Equatable {
    /// Big-endian byte length of a scalar.
    public static let byteCount = 32

    /// The scalar with the small integer value `n`.
    package init(_ n: UInt64) {
        self = Fr(l0: n, l1: 0, l2: 0, l3: 0) * Fr.rSquared
    }

    /// nil unless `bytes` is 32 bytes holding a value < r (OS2IP as in the BBS draft).
    /// Secret keys pass through here, so the limbs stay on the stack (no array to free unwiped).
    public init?(bigEndian bytes: some Collection<UInt8>) {
        guard bytes.count == Fr.byteCount else { return nil }
        var limbs = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        defer { wipe(value: &limbs) }
        for (i, byte) in bytes.enumerated() {
            switch i / 8 {  // big-endian: the first eight bytes are the top limb
            case 0: limbs.3 = limbs.3 << 8 | UInt64(byte)
            case 1: limbs.2 = limbs.2 << 8 | UInt64(byte)
            case 2: limbs.1 = limbs.1 << 8 | UInt64(byte)
            default: limbs.0 = limbs.0 << 8 | UInt64(byte)
            }
        }
        var borrow: UInt64 = 0
        (_, borrow) = subtractWithBorrow(limbs.0, 0xffffffff00000001, borrow)
        (_, borrow) = subtractWithBorrow(limbs.1, 0x53bda402fffe5bfe, borrow)
        (_, borrow) = subtractWithBorrow(limbs.2, 0x3339d80809a1d805, borrow)
        (_, borrow) = subtractWithBorrow(limbs.3, 0x73eda753299d7d48, borrow)
        guard borrow == 1 else { return nil }  // reveals only whether the encoding is canonical
        self = Fr(l0: limbs.0, l1: limbs.1, l2: limbs.2, l3: limbs.3) * Fr.rSquared
    }

    /// OS2IP(bytes) mod r for a 48-byte string, as hash_to_scalar needs; constant time, and the
    /// limbs (KeyGen's output before reduction) stay on the stack.
    package init(reducing bytes: [UInt8]) {
        precondition(bytes.count == 48)
        var limbs = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        defer { wipe(value: &limbs) }
        for i in 0..<8 {
            limbs.5 = limbs.5 << 8 | UInt64(bytes[i])
            limbs.4 = limbs.4 << 8 | UInt64(bytes[8 + i])
            limbs.3 = limbs.3 << 8 | UInt64(bytes[16 + i])
            limbs.2 = limbs.2 << 8 | UInt64(bytes[24 + i])
            limbs.1 = limbs.1 << 8 | UInt64(bytes[32 + i])
            limbs.0 = limbs.0 << 8 | UInt64(bytes[40 + i])
        }
        // value = high·2^256 + low; its Montgomery form is high·R^2 + low·R = mont(high, R^3) + mont(low, R^2).
        var low = Fr.reduceBelowModulus(limbs.0, limbs.1, limbs.2, limbs.3)
        low = Fr.reduceBelowModulus(low.l0, low.l1, low.l2, low.l3)
        let high = Fr(l0: limbs.4, l1: limbs.5, l2: 0, l3: 0)
        self = high * Fr.rCubed + low * Fr.rSquared
    }

    /// One masked subtraction of r from a 256-bit value (no carry in; the caller repeats as needed).
    private static func reduceBelowModulus(_ t0: UInt64, _ t1: UInt64, _ t2: UInt64, _ t3: UInt64) -> Fr {
        var b: UInt64 = 0
        let m = modulusLimbs
        let s0: UInt64; (s0, b) = subtractWithBorrow(t0, m[0], b)
        let s1: UInt64; (s1, b) = subtractWithBorrow(t1, m[1], b)
        let s2: UInt64; (s2, b) = subtractWithBorrow(t2, m[2], b)
        let s3: UInt64; (s3, b) = subtractWithBorrow(t3, m[3], b)
        let keep = 0 &- b
        return Fr(l0: (t0 & keep) | (s0 & ~keep), l1: (t1 & keep) | (s1 & ~keep),
                  l2: (t2 & keep) | (s2 & ~keep), l3: (t3 & keep) | (s3 & ~keep))
    }

    /// R^3 mod r, so that a Montgomery product with it lifts a 128-bit high part by 2^256.
    static let rCubed: Fr = rSquared * rSquared

    /// The integer value, little-endian limbs (what scalar multiplication consumes).
    package var plainLimbs: (UInt64, UInt64, UInt64, UInt64) {
        let v = self * Fr(l0: 1, l1: 0, l2: 0, l3: 0)
        return (v.l0, v.l1, v.l2, v.l3)
    }

    /// I2OSP(value, 32), in an array of exactly 32 bytes (the caller wipes it when secret).
    public var bigEndianBytes: [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(Fr.byteCount)
        appendBigEndian(to: &out)
        return out
    }

    /// Appends I2OSP(value, 32) to `bytes` with no intermediate buffer; reserve the capacity
    /// first when the value is secret, so that no reallocation leaves a copy behind.
    func appendBigEndian(to bytes: inout [UInt8]) {
        let (l0, l1, l2, l3) = plainLimbs
        var words = (l3.bigEndian, l2.bigEndian, l1.bigEndian, l0.bigEndian)
        defer { wipe(value: &words) }
        withUnsafeBytes(of: &words) { bytes.append(contentsOf: $0) }
    }

    public static func == (a: Fr, b: Fr) -> Bool {
        ((a.l0 ^ b.l0) | (a.l1 ^ b.l1) | (a.l2 ^ b.l2) | (a.l3 ^ b.l3)) == 0
    }

    package var isZero: Bool { (l0 | l1 | l2 | l3) == 0 }

    /// The multiplicative inverse (0 maps to 0) by Fermat, self^(r-2): a fixed sequence of
    /// squarings and multiplications, so the timing does not depend on the (secret) value.
    package func inverse() -> Fr {
        var result = Fr.one
        for limb in Fr.rMinus2.reversed() {
            for bit in (0..<64).reversed() {
                result = result * result
                // The exponent is public, so branching on its bits reveals nothing.
                if (limb >> UInt64(bit)) & 1 == 1 { result = result * self }
            }
        }
        return result
    }

    static let rMinus2: [UInt64] = subtractSmall(modulusLimbs, 2)
}
