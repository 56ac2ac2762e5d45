// Fp2 = Fp[u]/(u^2 + 1), the field of G2 coordinates.

/// An element c0 + c1·u of Fp2, where u^2 = -1.
package struct Fp2: Sendable, Equatable {
    package var c0: Fp
    package var c1: Fp

    @inline(__always)
    package init(_ c0: Fp, _ c1: Fp) {
        self.c0 = c0
        self.c1 = c1
    }

    package static let zero = Fp2(.zero, .zero)
    package static let one = Fp2(.one, .zero)

    @inline(__always)
    package static func + (a: Fp2, b: Fp2) -> Fp2 { Fp2(a.c0 + b.c0, a.c1 + b.c1) }

    @inline(__always)
    package static func - (a: Fp2, b: Fp2) -> Fp2 { Fp2(a.c0 - b.c0, a.c1 - b.c1) }

    @inline(__always)
    package static prefix func - (a: Fp2) -> Fp2 { Fp2(-a.c0, -a.c1) }

    /// Karatsuba: three base-field products.
    @inline(__always)
    package static func * (a: Fp2, b: Fp2) -> Fp2 {
        let v0 = a.c0 * b.c0
        let v1 = a.c1 * b.c1
        return Fp2(v0 - v1, (a.c0 + a.c1) * (b.c0 + b.c1) - v0 - v1)
    }

    @inline(__always)
    package static func * (a: Fp2, b: Fp) -> Fp2 { Fp2(a.c0 * b, a.c1 * b) }

    /// (a0 + a1)(a0 - a1) + 2·a0·a1·u: two base-field products.
    @inline(__always)
    package func squared() -> Fp2 {
        let t = c0 * c1
        return Fp2((c0 + c1) * (c0 - c1), t + t)
    }

    @inline(__always)
    package func doubled() -> Fp2 { Fp2(c0 + c0, c1 + c1) }

    /// Multiplication by ξ = 1 + u, the non-residue defining Fp6 (v^3 = ξ) and the twist.
    @inline(__always)
    package func timesXi() -> Fp2 { Fp2(c0 - c1, c0 + c1) }

    /// The Frobenius map x ↦ x^p, which on Fp2 is conjugation.
    @inline(__always)
    package func conjugate() -> Fp2 { Fp2(c0, -c1) }

    package var isZero: Bool { c0.isZero && c1.isZero }

    @inline(__always)
    var zeroMask: UInt64 { c0.zeroMask & c1.zeroMask }

    @inline(__always)
    static func select(_ a: Fp2, _ b: Fp2, _ mask: UInt64) -> Fp2 {
        Fp2(Fp.select(a.c0, b.c0, mask), Fp.select(a.c1, b.c1, mask))
    }

    /// The inverse (0 maps to 0): conj(a) / (a0^2 + a1^2).
    package func inverse() -> Fp2 {
        let t = (c0.squared() + c1.squared()).inverse()
        return Fp2(c0 * t, -(c1 * t))
    }

    /// self^e for a public exponent (little-endian limbs).
    func power(_ e: [UInt64]) -> Fp2 {
        var result = Fp2.one
        for limb in e.reversed() {
            for bit in (0..<64).reversed() {
                result = result.squared()
                if (limb >> UInt64(bit)) & 1 == 1 { result = result * self }
            }
        }
        return result
    }

    /// A square root when one exists (Adj–Rodríguez-Henríquez, eprint 2012/685 Alg. 9, p ≡ 3 mod 4).
    package func squareRoot() -> Fp2? {
        let a1 = power(Fp.pMinus3Over4)
        let alpha = a1.squared() * self
        let x0 = a1 * self
        let candidate: Fp2
        if alpha == Fp2(-Fp.one, .zero) {
            candidate = Fp2(-x0.c1, x0.c0)  // u·x0
        } else {
            let b = (alpha + .one).power(Fp.pMinus1Over2)
            candidate = b * x0
        }
        return candidate.squared() == self ? candidate : nil
    }

    /// RFC 9380 sgn0 for m = 2.
    package var sgn0: Bool {
        let sign0 = c0.sgn0
        return sign0 || (c0.isZero && c1.sgn0)
    }

    /// The encoding's "sort" bit: compare c1 first, then c0 when c1 = 0.
    package var isLexicographicallyLargest: Bool {
        c1.isZero ? c0.isLexicographicallyLargest : c1.isLexicographicallyLargest
    }
}

extension Fp {
    static let pMinus3Over4: [UInt64] = shiftRight(subtractSmall(modulusLimbs, 3), by: 2)
}
