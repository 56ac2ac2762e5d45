// Fr beyond the generated core: scalar encodings, reduction of hash output, inversion.
// Arithmetic and inversion run in time independent of the values (secret keys live here).

extension Fr: Equatable {
    /// Big-endian byte length of a scalar.
    public static let byteCount = 32

    /// The scalar with the small integer value `n`.
    public init(_ n: UInt64) {
        self = Fr(l0: n, l1: 0, l2: 0, l3: 0) * Fr.rSquared
    }

    /// nil unless `bytes` is 32 bytes holding a value < r (OS2IP as in the BBS draft).
    public init?(bigEndian bytes: some Collection<UInt8>) {
        guard bytes.count == Fr.byteCount else { return nil }
        let limbs = limbsFromBigEndian(bytes, count: 4)
        guard isLessThan(limbs, Fr.modulusLimbs) else { return nil }
        self = Fr(l0: limbs[0], l1: limbs[1], l2: limbs[2], l3: limbs[3]) * Fr.rSquared
    }

    /// OS2IP(bytes) mod r for a 48-byte string, as hash_to_scalar needs; constant time.
    public init(reducing bytes: [UInt8]) {
        precondition(bytes.count == 48)
        let limbs = limbsFromBigEndian(bytes, count: 6)
        // value = high·2^256 + low; its Montgomery form is high·R^2 + low·R = mont(high, R^3) + mont(low, R^2).
        var low = Fr.reduceBelowModulus(limbs[0], limbs[1], limbs[2], limbs[3])
        low = Fr.reduceBelowModulus(low.l0, low.l1, low.l2, low.l3)
        let high = Fr(l0: limbs[4], l1: limbs[5], l2: 0, l3: 0)
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
    public var plainLimbs: (UInt64, UInt64, UInt64, UInt64) {
        let v = self * Fr(l0: 1, l1: 0, l2: 0, l3: 0)
        return (v.l0, v.l1, v.l2, v.l3)
    }

    /// I2OSP(value, 32).
    public var bigEndianBytes: [UInt8] {
        let (a, b, c, d) = plainLimbs
        return bytesFromLimbs([a, b, c, d])
    }

    public static func == (a: Fr, b: Fr) -> Bool {
        ((a.l0 ^ b.l0) | (a.l1 ^ b.l1) | (a.l2 ^ b.l2) | (a.l3 ^ b.l3)) == 0
    }

    public var isZero: Bool { (l0 | l1 | l2 | l3) == 0 }

    /// The multiplicative inverse (0 maps to 0) by Fermat, self^(r-2): a fixed sequence of
    /// squarings and multiplications, so the timing does not depend on the (secret) value.
    public func inverse() -> Fr {
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
