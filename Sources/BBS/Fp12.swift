// Fp12 = Fp6[w]/(w^2 - v), the pairing's target field.

/// An element c0 + c1·w of Fp12, where w^2 = v; the pairing's values live here.
package struct Fp12: Sendable, Equatable {
    package var c0: Fp6
    package var c1: Fp6

    @inline(__always)
    package init(_ c0: Fp6, _ c1: Fp6) {
        self.c0 = c0
        self.c1 = c1
    }

    package static let one = Fp12(.one, .zero)

    package static func * (a: Fp12, b: Fp12) -> Fp12 {
        let t0 = a.c0 * b.c0
        let t1 = a.c1 * b.c1
        return Fp12(t0 + t1.timesV(), (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1)
    }

    /// Complex squaring: two Fp6 products.
    package func squared() -> Fp12 {
        let ab = c0 * c1
        let c0v = (c0 + c1) * (c0 + c1.timesV()) - ab - ab.timesV()
        return Fp12(c0v, ab + ab)
    }

    /// x ↦ x^(p^6), the inverse on the cyclotomic subgroup.
    @inline(__always)
    package func conjugate() -> Fp12 { Fp12(c0, -c1) }

    package func inverse() -> Fp12 {
        let d = (c0.squared() - c1.squared().timesV()).inverse()
        return Fp12(c0 * d, -(c1 * d))
    }

    /// Product with a line ℓ0 + ℓ1·v + ℓ4·v·w (the sparse shape of the Miller loop's lines).
    func multiplied(byLine l0: Fp2, _ l1: Fp2, _ l4: Fp2) -> Fp12 {
        let aa = c0.multiplied(by: l0, l1)
        let bb = c1.multiplied(byV: l4)
        let cross = (c0 + c1).multiplied(by: l0, l1 + l4) - aa - bb
        return Fp12(aa + bb.timesV(), cross)
    }

    /// x ↦ x^p.
    package func frobenius() -> Fp12 {
        let b = c1.frobenius()
        let g = Fp12.frobeniusW
        return Fp12(c0.frobenius(), Fp6(b.c0 * g, b.c1 * g, b.c2 * g))
    }

    /// w^(p-1) = ξ^((p-1)/6).
    static let frobeniusW = Fp2(
        Fp(hex: "1904d3bf02bb0667c231beb4202c0d1f0fd603fd3cbd5f4f7b2443d784bab9c4f67ea53d63e7813d8d0775ed92235fb8"),
        Fp(hex: "fc3e2b36c4e03288e9e902231f9fb854a14787b6c7b36fec0c8ec971f63c5f282d5ac14d6c7ec22cf78a126ddc4af3"))

    /// Granger–Scott squaring, valid only in the cyclotomic subgroup (after the easy part of
    /// the final exponentiation). Pairs (g0,g3), (g1,g4), (g2,g5) of w-powers are Fp4 elements.
    package func cyclotomicSquared() -> Fp12 {
        var z0 = c0.c0, z4 = c0.c1, z3 = c0.c2
        var z2 = c1.c0, z1 = c1.c1, z5 = c1.c2
        let (a0, a1) = Fp12.fp4Squared(z0, z1)
        z0 = a0 - z0; z0 = z0 + z0 + a0
        z1 = a1 + z1; z1 = z1 + z1 + a1
        let (b0, b1) = Fp12.fp4Squared(z2, z3)
        let (d0, d1) = Fp12.fp4Squared(z4, z5)
        z4 = b0 - z4; z4 = z4 + z4 + b0
        z5 = b1 + z5; z5 = z5 + z5 + b1
        let t = d1.timesXi()
        z2 = t + z2; z2 = z2 + z2 + t
        z3 = d0 - z3; z3 = z3 + z3 + d0
        return Fp12(Fp6(z0, z4, z3), Fp6(z2, z1, z5))
    }

    /// (a + b·s)^2 in Fp4 = Fp2[s]/(s^2 - ξ).
    @inline(__always)
    private static func fp4Squared(_ a: Fp2, _ b: Fp2) -> (Fp2, Fp2) {
        let t0 = a.squared()
        let t1 = b.squared()
        return (t1.timesXi() + t0, (a + b).squared() - t0 - t1)
    }
}
