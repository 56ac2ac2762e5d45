// The core arithmetic, unrolled limb by limb (straight-line code, no arrays, no loops) so the
// optimiser keeps every limb in registers. The constants are the modulus q and -q^-1 mod 2^64.
// Multiplication is CIOS Montgomery with the "no-carry" shortcut (valid because the modulus' top
// limb is below 2^63 - 1, so intermediate sums never need an extra limb): for each row i,
//     (A, t0) = t0 + a0·b_i;  m = t0·inv;  C = hi(t0 + m·q0)
//     for j in 1..<6: (A, t_j) = t_j + a_j·b_i + A;  (C, t_(j-1)) = t_j + m·q_j + C
//     t_5 = C + A
// then one masked subtraction of q. Every step is branch-free (see Limbs.swift).

/// An element of the BLS12-381 base field GF(p), p a 381-bit prime, in Montgomery form.
package struct Fp: Sendable, BitwiseCopyable {
    // Little-endian limbs of the Montgomery representative a·2^384 mod q, always < q.
    var l0, l1, l2, l3, l4, l5: UInt64

    @inline(__always)
    init(l0: UInt64, l1: UInt64, l2: UInt64, l3: UInt64, l4: UInt64, l5: UInt64) {
        self.l0 = l0
        self.l1 = l1
        self.l2 = l2
        self.l3 = l3
        self.l4 = l4
        self.l5 = l5
    }

    /// The modulus q, little-endian limbs (plain integer, not Montgomery form).
    static let modulusLimbs: [UInt64] = [0xb9feffffffffaaab, 0x1eabfffeb153ffff, 0x6730d2a0f6b0f624, 0x64774b84f38512bf, 0x4b1ba7b6434bacd7, 0x1a0111ea397fe69a]
    static let inv: UInt64 = 0x89f3fffcfffcfffd  // -q^-1 mod 2^64
    package static let zero = Fp(l0: 0, l1: 0, l2: 0, l3: 0, l4: 0, l5: 0)
    package static let one = Fp(l0: 0x760900000002fffd, l1: 0xebf4000bc40c0002, l2: 0x5f48985753c758ba, l3: 0x77ce585370525745, l4: 0x5c071a97a256ec6d, l5: 0x15f65ec3fa80e493)
    /// R^2 mod q, to enter Montgomery form.
    static let rSquared = Fp(l0: 0xf4df1f341c341746, l1: 0x0a76e6a609d104f1, l2: 0x8de5476c4c95b6d5, l3: 0x67eb88a9939d83c0, l4: 0x9a793e85b519952d, l5: 0x11988fe592cae3aa)

    /// t - q if t ≥ q, else t; by mask, not branch. Requires t < 2q.
    @inline(__always)
    static func subtractModulusIfNeeded(_ t0: UInt64, _ t1: UInt64, _ t2: UInt64, _ t3: UInt64, _ t4: UInt64, _ t5: UInt64) -> Fp {
        var b: UInt64 = 0
        let s0: UInt64; (s0, b) = subtractWithBorrow(t0, 0xb9feffffffffaaab, b)
        let s1: UInt64; (s1, b) = subtractWithBorrow(t1, 0x1eabfffeb153ffff, b)
        let s2: UInt64; (s2, b) = subtractWithBorrow(t2, 0x6730d2a0f6b0f624, b)
        let s3: UInt64; (s3, b) = subtractWithBorrow(t3, 0x64774b84f38512bf, b)
        let s4: UInt64; (s4, b) = subtractWithBorrow(t4, 0x4b1ba7b6434bacd7, b)
        let s5: UInt64; (s5, b) = subtractWithBorrow(t5, 0x1a0111ea397fe69a, b)
        let keep = 0 &- b  // all ones when t < q
        return Fp(l0: (t0 & keep) | (s0 & ~keep), l1: (t1 & keep) | (s1 & ~keep), l2: (t2 & keep) | (s2 & ~keep), l3: (t3 & keep) | (s3 & ~keep), l4: (t4 & keep) | (s4 & ~keep), l5: (t5 & keep) | (s5 & ~keep))
    }

    @inline(__always)
    package static func + (a: Fp, b: Fp) -> Fp {
        var c: UInt64 = 0
        let t0: UInt64; (t0, c) = addWithCarry(a.l0, b.l0, c)
        let t1: UInt64; (t1, c) = addWithCarry(a.l1, b.l1, c)
        let t2: UInt64; (t2, c) = addWithCarry(a.l2, b.l2, c)
        let t3: UInt64; (t3, c) = addWithCarry(a.l3, b.l3, c)
        let t4: UInt64; (t4, c) = addWithCarry(a.l4, b.l4, c)
        let t5: UInt64; (t5, c) = addWithCarry(a.l5, b.l5, c)
        return subtractModulusIfNeeded(t0, t1, t2, t3, t4, t5)
    }

    @inline(__always)
    package static func - (a: Fp, b: Fp) -> Fp {
        var bo: UInt64 = 0
        let t0: UInt64; (t0, bo) = subtractWithBorrow(a.l0, b.l0, bo)
        let t1: UInt64; (t1, bo) = subtractWithBorrow(a.l1, b.l1, bo)
        let t2: UInt64; (t2, bo) = subtractWithBorrow(a.l2, b.l2, bo)
        let t3: UInt64; (t3, bo) = subtractWithBorrow(a.l3, b.l3, bo)
        let t4: UInt64; (t4, bo) = subtractWithBorrow(a.l4, b.l4, bo)
        let t5: UInt64; (t5, bo) = subtractWithBorrow(a.l5, b.l5, bo)
        let m = 0 &- bo  // add q back when the difference went negative
        var c: UInt64 = 0
        let r0: UInt64; (r0, c) = addWithCarry(t0, 0xb9feffffffffaaab & m, c)
        let r1: UInt64; (r1, c) = addWithCarry(t1, 0x1eabfffeb153ffff & m, c)
        let r2: UInt64; (r2, c) = addWithCarry(t2, 0x6730d2a0f6b0f624 & m, c)
        let r3: UInt64; (r3, c) = addWithCarry(t3, 0x64774b84f38512bf & m, c)
        let r4: UInt64; (r4, c) = addWithCarry(t4, 0x4b1ba7b6434bacd7 & m, c)
        let r5: UInt64; (r5, c) = addWithCarry(t5, 0x1a0111ea397fe69a & m, c)
        return Fp(l0: r0, l1: r1, l2: r2, l3: r3, l4: r4, l5: r5)
    }

    @inline(__always)
    package static prefix func - (a: Fp) -> Fp {
        let nonZero = a.l0 | a.l1 | a.l2 | a.l3 | a.l4 | a.l5
        let m = 0 &- ((nonZero | (0 &- nonZero)) >> 63)  // zero stays zero
        var bo: UInt64 = 0
        let t0: UInt64; (t0, bo) = subtractWithBorrow(0xb9feffffffffaaab, a.l0, bo)
        let t1: UInt64; (t1, bo) = subtractWithBorrow(0x1eabfffeb153ffff, a.l1, bo)
        let t2: UInt64; (t2, bo) = subtractWithBorrow(0x6730d2a0f6b0f624, a.l2, bo)
        let t3: UInt64; (t3, bo) = subtractWithBorrow(0x64774b84f38512bf, a.l3, bo)
        let t4: UInt64; (t4, bo) = subtractWithBorrow(0x4b1ba7b6434bacd7, a.l4, bo)
        let t5: UInt64; (t5, bo) = subtractWithBorrow(0x1a0111ea397fe69a, a.l5, bo)
        return Fp(l0: t0 & m, l1: t1 & m, l2: t2 & m, l3: t3 & m, l4: t4 & m, l5: t5 & m)
    }

    // Deliberately a call: inlined into every Fp2/Fp6/Fp12 and curve formula, the product made
    // the BBS objects ten times larger and their compilation minutes longer, for no speed.
    @inline(never)
    package static func * (a: Fp, b: Fp) -> Fp {
        var t0, t1, t2, t3, t4, t5: UInt64
        var carryA: UInt64, carryC: UInt64, m: UInt64
        // row 0
        (carryA, t0) = a.l0.multipliedFullWidth(by: b.l0)
        m = t0 &* inv
        carryC = multiplyAdd(m, 0xb9feffffffffaaab, t0).hi
        (carryA, t1) = multiplyAdd(a.l1, b.l0, carryA)
        (carryC, t0) = multiplyAdd(m, 0x1eabfffeb153ffff, t1, carryC)
        (carryA, t2) = multiplyAdd(a.l2, b.l0, carryA)
        (carryC, t1) = multiplyAdd(m, 0x6730d2a0f6b0f624, t2, carryC)
        (carryA, t3) = multiplyAdd(a.l3, b.l0, carryA)
        (carryC, t2) = multiplyAdd(m, 0x64774b84f38512bf, t3, carryC)
        (carryA, t4) = multiplyAdd(a.l4, b.l0, carryA)
        (carryC, t3) = multiplyAdd(m, 0x4b1ba7b6434bacd7, t4, carryC)
        (carryA, t5) = multiplyAdd(a.l5, b.l0, carryA)
        (carryC, t4) = multiplyAdd(m, 0x1a0111ea397fe69a, t5, carryC)
        t5 = carryC &+ carryA
        // row 1
        (carryA, t0) = multiplyAdd(a.l0, b.l1, t0)
        m = t0 &* inv
        carryC = multiplyAdd(m, 0xb9feffffffffaaab, t0).hi
        (carryA, t1) = multiplyAdd(a.l1, b.l1, t1, carryA)
        (carryC, t0) = multiplyAdd(m, 0x1eabfffeb153ffff, t1, carryC)
        (carryA, t2) = multiplyAdd(a.l2, b.l1, t2, carryA)
        (carryC, t1) = multiplyAdd(m, 0x6730d2a0f6b0f624, t2, carryC)
        (carryA, t3) = multiplyAdd(a.l3, b.l1, t3, carryA)
        (carryC, t2) = multiplyAdd(m, 0x64774b84f38512bf, t3, carryC)
        (carryA, t4) = multiplyAdd(a.l4, b.l1, t4, carryA)
        (carryC, t3) = multiplyAdd(m, 0x4b1ba7b6434bacd7, t4, carryC)
        (carryA, t5) = multiplyAdd(a.l5, b.l1, t5, carryA)
        (carryC, t4) = multiplyAdd(m, 0x1a0111ea397fe69a, t5, carryC)
        t5 = carryC &+ carryA
        // row 2
        (carryA, t0) = multiplyAdd(a.l0, b.l2, t0)
        m = t0 &* inv
        carryC = multiplyAdd(m, 0xb9feffffffffaaab, t0).hi
        (carryA, t1) = multiplyAdd(a.l1, b.l2, t1, carryA)
        (carryC, t0) = multiplyAdd(m, 0x1eabfffeb153ffff, t1, carryC)
        (carryA, t2) = multiplyAdd(a.l2, b.l2, t2, carryA)
        (carryC, t1) = multiplyAdd(m, 0x6730d2a0f6b0f624, t2, carryC)
        (carryA, t3) = multiplyAdd(a.l3, b.l2, t3, carryA)
        (carryC, t2) = multiplyAdd(m, 0x64774b84f38512bf, t3, carryC)
        (carryA, t4) = multiplyAdd(a.l4, b.l2, t4, carryA)
        (carryC, t3) = multiplyAdd(m, 0x4b1ba7b6434bacd7, t4, carryC)
        (carryA, t5) = multiplyAdd(a.l5, b.l2, t5, carryA)
        (carryC, t4) = multiplyAdd(m, 0x1a0111ea397fe69a, t5, carryC)
        t5 = carryC &+ carryA
        // row 3
        (carryA, t0) = multiplyAdd(a.l0, b.l3, t0)
        m = t0 &* inv
        carryC = multiplyAdd(m, 0xb9feffffffffaaab, t0).hi
        (carryA, t1) = multiplyAdd(a.l1, b.l3, t1, carryA)
        (carryC, t0) = multiplyAdd(m, 0x1eabfffeb153ffff, t1, carryC)
        (carryA, t2) = multiplyAdd(a.l2, b.l3, t2, carryA)
        (carryC, t1) = multiplyAdd(m, 0x6730d2a0f6b0f624, t2, carryC)
        (carryA, t3) = multiplyAdd(a.l3, b.l3, t3, carryA)
        (carryC, t2) = multiplyAdd(m, 0x64774b84f38512bf, t3, carryC)
        (carryA, t4) = multiplyAdd(a.l4, b.l3, t4, carryA)
        (carryC, t3) = multiplyAdd(m, 0x4b1ba7b6434bacd7, t4, carryC)
        (carryA, t5) = multiplyAdd(a.l5, b.l3, t5, carryA)
        (carryC, t4) = multiplyAdd(m, 0x1a0111ea397fe69a, t5, carryC)
        t5 = carryC &+ carryA
        // row 4
        (carryA, t0) = multiplyAdd(a.l0, b.l4, t0)
        m = t0 &* inv
        carryC = multiplyAdd(m, 0xb9feffffffffaaab, t0).hi
        (carryA, t1) = multiplyAdd(a.l1, b.l4, t1, carryA)
        (carryC, t0) = multiplyAdd(m, 0x1eabfffeb153ffff, t1, carryC)
        (carryA, t2) = multiplyAdd(a.l2, b.l4, t2, carryA)
        (carryC, t1) = multiplyAdd(m, 0x6730d2a0f6b0f624, t2, carryC)
        (carryA, t3) = multiplyAdd(a.l3, b.l4, t3, carryA)
        (carryC, t2) = multiplyAdd(m, 0x64774b84f38512bf, t3, carryC)
        (carryA, t4) = multiplyAdd(a.l4, b.l4, t4, carryA)
        (carryC, t3) = multiplyAdd(m, 0x4b1ba7b6434bacd7, t4, carryC)
        (carryA, t5) = multiplyAdd(a.l5, b.l4, t5, carryA)
        (carryC, t4) = multiplyAdd(m, 0x1a0111ea397fe69a, t5, carryC)
        t5 = carryC &+ carryA
        // row 5
        (carryA, t0) = multiplyAdd(a.l0, b.l5, t0)
        m = t0 &* inv
        carryC = multiplyAdd(m, 0xb9feffffffffaaab, t0).hi
        (carryA, t1) = multiplyAdd(a.l1, b.l5, t1, carryA)
        (carryC, t0) = multiplyAdd(m, 0x1eabfffeb153ffff, t1, carryC)
        (carryA, t2) = multiplyAdd(a.l2, b.l5, t2, carryA)
        (carryC, t1) = multiplyAdd(m, 0x6730d2a0f6b0f624, t2, carryC)
        (carryA, t3) = multiplyAdd(a.l3, b.l5, t3, carryA)
        (carryC, t2) = multiplyAdd(m, 0x64774b84f38512bf, t3, carryC)
        (carryA, t4) = multiplyAdd(a.l4, b.l5, t4, carryA)
        (carryC, t3) = multiplyAdd(m, 0x4b1ba7b6434bacd7, t4, carryC)
        (carryA, t5) = multiplyAdd(a.l5, b.l5, t5, carryA)
        (carryC, t4) = multiplyAdd(m, 0x1a0111ea397fe69a, t5, carryC)
        t5 = carryC &+ carryA
        return subtractModulusIfNeeded(t0, t1, t2, t3, t4, t5)
    }
}

