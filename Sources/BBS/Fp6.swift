// Fp6 = Fp2[v]/(v^3 - ξ), ξ = 1 + u.

/// An element c0 + c1·v + c2·v^2 of Fp6, where v^3 = ξ = 1 + u.
package struct Fp6: Sendable, Equatable {
    package var c0: Fp2
    package var c1: Fp2
    package var c2: Fp2

    @inline(__always)
    package init(_ c0: Fp2, _ c1: Fp2, _ c2: Fp2) {
        self.c0 = c0
        self.c1 = c1
        self.c2 = c2
    }

    package static let zero = Fp6(.zero, .zero, .zero)
    package static let one = Fp6(.one, .zero, .zero)

    @inline(__always)
    package static func + (a: Fp6, b: Fp6) -> Fp6 { Fp6(a.c0 + b.c0, a.c1 + b.c1, a.c2 + b.c2) }

    @inline(__always)
    package static func - (a: Fp6, b: Fp6) -> Fp6 { Fp6(a.c0 - b.c0, a.c1 - b.c1, a.c2 - b.c2) }

    @inline(__always)
    package static prefix func - (a: Fp6) -> Fp6 { Fp6(-a.c0, -a.c1, -a.c2) }

    /// Karatsuba-style: six Fp2 products.
    package static func * (a: Fp6, b: Fp6) -> Fp6 {
        let t0 = a.c0 * b.c0
        let t1 = a.c1 * b.c1
        let t2 = a.c2 * b.c2
        let c0 = ((a.c1 + a.c2) * (b.c1 + b.c2) - t1 - t2).timesXi() + t0
        let c1 = (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1 + t2.timesXi()
        let c2 = (a.c0 + a.c2) * (b.c0 + b.c2) - t0 - t2 + t1
        return Fp6(c0, c1, c2)
    }

    /// Chung–Hasan SQR2.
    package func squared() -> Fp6 {
        let s0 = c0.squared()
        let ab = c0 * c1
        let s1 = ab.doubled()
        let s2 = (c0 - c1 + c2).squared()
        let bc = c1 * c2
        let s3 = bc.doubled()
        let s4 = c2.squared()
        return Fp6(s3.timesXi() + s0, s4.timesXi() + s1, s1 + s2 + s3 - s0 - s4)
    }

    /// Multiplication by v: (c0, c1, c2) ↦ (ξ·c2, c0, c1).
    @inline(__always)
    package func timesV() -> Fp6 { Fp6(c2.timesXi(), c0, c1) }

    /// Product with b0 + b1·v (a line's sparse half).
    @inline(__always)
    func multiplied(by b0: Fp2, _ b1: Fp2) -> Fp6 {
        let t0 = c0 * b0
        let t1 = c1 * b1
        return Fp6((c2 * b1).timesXi() + t0, (c0 + c1) * (b0 + b1) - t0 - t1, c2 * b0 + t1)
    }

    /// Product with b1·v.
    @inline(__always)
    func multiplied(byV b1: Fp2) -> Fp6 {
        Fp6((c2 * b1).timesXi(), c0 * b1, c1 * b1)
    }

    package func inverse() -> Fp6 {
        let t0 = c0.squared() - (c1 * c2).timesXi()
        let t1 = c2.squared().timesXi() - c0 * c1
        let t2 = c1.squared() - c0 * c2
        let d = (c0 * t0 + (c2 * t1 + c1 * t2).timesXi()).inverse()
        return Fp6(t0 * d, t1 * d, t2 * d)
    }

    /// x ↦ x^p.
    package func frobenius() -> Fp6 {
        Fp6(c0.conjugate(), c1.conjugate() * Fp6.frobeniusV1, c2.conjugate() * Fp6.frobeniusV2)
    }

    /// ξ^((p-1)/3) and ξ^(2(p-1)/3): v^p = v·ξ^((p-1)/3).
    static let frobeniusV1 = Fp2(.zero, Fp(hex: "1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd00000000aaac"))
    static let frobeniusV2 = Fp2(Fp(hex: "1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd00000000aaad"), .zero)
}
