// The core arithmetic, unrolled limb by limb (straight-line code, no arrays, no loops) so the
// optimiser keeps every limb in registers. The constants are the modulus q and -q^-1 mod 2^64.
// Multiplication is CIOS Montgomery with the "no-carry" shortcut (valid because the modulus' top
// limb is below 2^63 - 1, so intermediate sums never need an extra limb): for each row i,
//     (A, t0) = t0 + a0·b_i;  m = t0·inv;  C = hi(t0 + m·q0)
//     for j in 1..<4: (A, t_j) = t_j + a_j·b_i + A;  (C, t_(j-1)) = t_j + m·q_j + C
//     t_3 = C + A
// then one masked subtraction of q. Every step is branch-free (see Limbs.swift).

/// An element of the BLS12-381 scalar field GF(r), r the 255-bit group order, in Montgomery form.
public struct Fr: Sendable, BitwiseCopyable {
    // Little-endian limbs of the Montgomery representative a·2^256 mod q, always < q.
    var l0, l1, l2, l3: UInt64

    @inline(__always)
    init(l0: UInt64, l1: UInt64, l2: UInt64, l3: UInt64) {
        self.l0 = l0
        self.l1 = l1
        self.l2 = l2
        self.l3 = l3
    }

    /// The modulus q, little-endian limbs (plain integer, not Montgomery form).
    static let modulusLimbs: [UInt64] = [0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48]
    static let inv: UInt64 = 0xfffffffeffffffff  // -q^-1 mod 2^64
    package static let zero = Fr(l0: 0, l1: 0, l2: 0, l3: 0)
    package static let one = Fr(l0: 0x00000001fffffffe, l1: 0x5884b7fa00034802, l2: 0x998c4fefecbc4ff5, l3: 0x1824b159acc5056f)
    /// R^2 mod q, to enter Montgomery form.
    static let rSquared = Fr(l0: 0xc999e990f3f29c6d, l1: 0x2b6cedcb87925c23, l2: 0x05d314967254398f, l3: 0x0748d9d99f59ff11)

    /// t - q if t ≥ q, else t; by mask, not branch. Requires t < 2q.
    @inline(__always)
    static func subtractModulusIfNeeded(_ t0: UInt64, _ t1: UInt64, _ t2: UInt64, _ t3: UInt64) -> Fr {
        var b: UInt64 = 0
        let s0: UInt64; (s0, b) = subtractWithBorrow(t0, 0xffffffff00000001, b)
        let s1: UInt64; (s1, b) = subtractWithBorrow(t1, 0x53bda402fffe5bfe, b)
        let s2: UInt64; (s2, b) = subtractWithBorrow(t2, 0x3339d80809a1d805, b)
        let s3: UInt64; (s3, b) = subtractWithBorrow(t3, 0x73eda753299d7d48, b)
        let keep = 0 &- b  // all ones when t < q
        return Fr(l0: (t0 & keep) | (s0 & ~keep), l1: (t1 & keep) | (s1 & ~keep), l2: (t2 & keep) | (s2 & ~keep), l3: (t3 & keep) | (s3 & ~keep))
    }

    @inline(__always)
    package static func + (a: Fr, b: Fr) -> Fr {
        var c: UInt64 = 0
        let t0: UInt64; (t0, c) = addWithCarry(a.l0, b.l0, c)
        let t1: UInt64; (t1, c) = addWithCarry(a.l1, b.l1, c)
        let t2: UInt64; (t2, c) = addWithCarry(a.l2, b.l2, c)
        let t3: UInt64; (t3, c) = addWithCarry(a.l3, b.l3, c)
        return subtractModulusIfNeeded(t0, t1, t2, t3)
    }

    @inline(__always)
    package static func - (a: Fr, b: Fr) -> Fr {
        var bo: UInt64 = 0
        let t0: UInt64; (t0, bo) = subtractWithBorrow(a.l0, b.l0, bo)
        let t1: UInt64; (t1, bo) = subtractWithBorrow(a.l1, b.l1, bo)
        let t2: UInt64; (t2, bo) = subtractWithBorrow(a.l2, b.l2, bo)
        let t3: UInt64; (t3, bo) = subtractWithBorrow(a.l3, b.l3, bo)
        let m = 0 &- bo  // add q back when the difference went negative
        var c: UInt64 = 0
        let r0: UInt64; (r0, c) = addWithCarry(t0, 0xffffffff00000001 & m, c)
        let r1: UInt64; (r1, c) = addWithCarry(t1, 0x53bda402fffe5bfe & m, c)
        let r2: UInt64; (r2, c) = addWithCarry(t2, 0x3339d80809a1d805 & m, c)
        let r3: UInt64; (r3, c) = addWithCarry(t3, 0x73eda753299d7d48 & m, c)
        return Fr(l0: r0, l1: r1, l2: r2, l3: r3)
    }

    @inline(__always)
    package static prefix func - (a: Fr) -> Fr {
        let nonZero = a.l0 | a.l1 | a.l2 | a.l3
        let m = 0 &- ((nonZero | (0 &- nonZero)) >> 63)  // zero stays zero
        var bo: UInt64 = 0
        let t0: UInt64; (t0, bo) = subtractWithBorrow(0xffffffff00000001, a.l0, bo)
        let t1: UInt64; (t1, bo) = subtractWithBorrow(0x53bda402fffe5bfe, a.l1, bo)
        let t2: UInt64; (t2, bo) = subtractWithBorrow(0x3339d80809a1d805, a.l2, bo)
        let t3: UInt64; (t3, bo) = subtractWithBorrow(0x73eda753299d7d48, a.l3, bo)
        return Fr(l0: t0 & m, l1: t1 & m, l2: t2 & m, l3: t3 & m)
    }

    @inline(__always)
    package static func * (a: Fr, b: Fr) -> Fr {
        var t0, t1, t2, t3: UInt64
        var carryA: UInt64, carryC: UInt64, m: UInt64
        // row 0
        (carryA, t0) = a.l0.multipliedFullWidth(by: b.l0)
        m = t0 &* inv
        carryC = multiplyAdd(m, 0xffffffff00000001, t0).hi
        (carryA, t1) = multiplyAdd(a.l1, b.l0, carryA)
        (carryC, t0) = multiplyAdd(m, 0x53bda402fffe5bfe, t1, carryC)
        (carryA, t2) = multiplyAdd(a.l2, b.l0, carryA)
        (carryC, t1) = multiplyAdd(m, 0x3339d80809a1d805, t2, carryC)
        (carryA, t3) = multiplyAdd(a.l3, b.l0, carryA)
        (carryC, t2) = multiplyAdd(m, 0x73eda753299d7d48, t3, carryC)
        t3 = carryC &+ carryA
        // row 1
        (carryA, t0) = multiplyAdd(a.l0, b.l1, t0)
        m = t0 &* inv
        carryC = multiplyAdd(m, 0xffffffff00000001, t0).hi
        (carryA, t1) = multiplyAdd(a.l1, b.l1, t1, carryA)
        (carryC, t0) = multiplyAdd(m, 0x53bda402fffe5bfe, t1, carryC)
        (carryA, t2) = multiplyAdd(a.l2, b.l1, t2, carryA)
        (carryC, t1) = multiplyAdd(m, 0x3339d80809a1d805, t2, carryC)
        (carryA, t3) = multiplyAdd(a.l3, b.l1, t3, carryA)
        (carryC, t2) = multiplyAdd(m, 0x73eda753299d7d48, t3, carryC)
        t3 = carryC &+ carryA
        // row 2
        (carryA, t0) = multiplyAdd(a.l0, b.l2, t0)
        m = t0 &* inv
        carryC = multiplyAdd(m, 0xffffffff00000001, t0).hi
        (carryA, t1) = multiplyAdd(a.l1, b.l2, t1, carryA)
        (carryC, t0) = multiplyAdd(m, 0x53bda402fffe5bfe, t1, carryC)
        (carryA, t2) = multiplyAdd(a.l2, b.l2, t2, carryA)
        (carryC, t1) = multiplyAdd(m, 0x3339d80809a1d805, t2, carryC)
        (carryA, t3) = multiplyAdd(a.l3, b.l2, t3, carryA)
        (carryC, t2) = multiplyAdd(m, 0x73eda753299d7d48, t3, carryC)
        t3 = carryC &+ carryA
        // row 3
        (carryA, t0) = multiplyAdd(a.l0, b.l3, t0)
        m = t0 &* inv
        carryC = multiplyAdd(m, 0xffffffff00000001, t0).hi
        (carryA, t1) = multiplyAdd(a.l1, b.l3, t1, carryA)
        (carryC, t0) = multiplyAdd(m, 0x53bda402fffe5bfe, t1, carryC)
        (carryA, t2) = multiplyAdd(a.l2, b.l3, t2, carryA)
        (carryC, t1) = multiplyAdd(m, 0x3339d80809a1d805, t2, carryC)
        (carryA, t3) = multiplyAdd(a.l3, b.l3, t3, carryA)
        (carryC, t2) = multiplyAdd(m, 0x73eda753299d7d48, t3, carryC)
        t3 = carryC &+ carryA
        return subtractModulusIfNeeded(t0, t1, t2, t3)
    }
}

