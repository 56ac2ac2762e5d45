// G1: points of E(Fp): y^2 = x^3 + 4, in homogeneous projective coordinates (x = X/Z, y = Y/Z).
// Addition and doubling use the complete formulas of Renes–Costello–Batina (eprint 2015/1060,
// Algorithms 7–9 for a = 0): no input needs a special case (identity, P = Q, P = -Q), so the
// same instruction sequence runs whatever the points are.

/// A point of the BLS12-381 curve E(Fp), projective coordinates; the group G1 is its order-r subgroup.
package struct G1Point: Sendable {
    package var x: Fp
    package var y: Fp
    package var z: Fp

    @inline(__always)
    package init(x: Fp, y: Fp, z: Fp) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The affine point (x, y); the caller vouches that it is on the curve.
    package init(affineX x: Fp, y: Fp) {
        self.init(x: x, y: y, z: .one)
    }

    package static let identity = G1Point(x: .zero, y: .one, z: .zero)

    /// The standard generator of G1.
    package static let generator = G1Point(
        affineX: Fp(hex: "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"),
        y: Fp(hex: "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1"))

    /// The curve's b = 4.
    static let b = Fp(4)

    /// 3b·t = 12·t by additions.
    @inline(__always)
    static func times3b(_ t: Fp) -> Fp {
        let t4 = t.doubled().doubled()
        return t4.doubled() + t4
    }

    package var isIdentity: Bool { z.isZero }

    /// Complete addition (RCB Algorithm 7): 12 multiplications.
    package static func + (p: G1Point, q: G1Point) -> G1Point {
        let t0 = p.x * q.x
        let t1 = p.y * q.y
        let t2 = p.z * q.z
        var t3 = (p.x + p.y) * (q.x + q.y)
        var t4 = t0 + t1
        t3 = t3 - t4
        t4 = (p.y + p.z) * (q.y + q.z)
        var x3 = t1 + t2
        t4 = t4 - x3
        x3 = (p.x + p.z) * (q.x + q.z)
        var y3 = t0 + t2
        y3 = x3 - y3
        return additionTail(xx: t0, yy: t1, zz: t2, t3: t3, t4: t4, y3: y3)
    }

    /// The end Algorithms 7 and 8 share, from X1·X2, Y1·Y2 and Z1·Z2 (Z1 alone when Q is
    /// affine) and the cross terms t3, t4 and y3 each computed its own way.
    @inline(__always)
    static func additionTail(xx: Fp, yy: Fp, zz: Fp, t3: Fp, t4: Fp, y3 y: Fp) -> G1Point {
        var t0 = xx + xx
        t0 = t0 + xx
        var t1 = yy
        var t2 = times3b(zz)
        var z3 = t1 + t2
        t1 = t1 - t2
        var y3 = times3b(y)
        var x3 = t4 * y3
        t2 = t3 * t1
        x3 = t2 - x3
        y3 = y3 * t0
        t1 = t1 * z3
        y3 = t1 + y3
        t0 = t0 * t3
        z3 = z3 * t4
        z3 = z3 + t0
        return G1Point(x: x3, y: y3, z: z3)
    }

    /// Complete doubling (RCB Algorithm 9): 6 multiplications and 2 squarings.
    package func doubled() -> G1Point {
        var t0 = y.squared()
        var z3 = t0.doubled().doubled().doubled()
        var t1 = y * z
        var t2 = z.squared()
        t2 = G1Point.times3b(t2)
        var x3 = t2 * z3
        var y3 = t0 + t2
        z3 = t1 * z3
        t1 = t2 + t2
        t2 = t1 + t2
        t0 = t0 - t2
        y3 = t0 * y3
        y3 = x3 + y3
        t1 = x * y
        x3 = t0 * t1
        x3 = x3 + x3
        return G1Point(x: x3, y: y3, z: z3)
    }

    @inline(__always)
    package static prefix func - (p: G1Point) -> G1Point { G1Point(x: p.x, y: -p.y, z: p.z) }

    package static func - (p: G1Point, q: G1Point) -> G1Point { p + (-q) }

    /// `b` where `mask` is all ones, `a` where it is zero; no branch.
    @inline(__always)
    package static func select(_ a: G1Point, _ b: G1Point, _ mask: UInt64) -> G1Point {
        G1Point(x: Fp.select(a.x, b.x, mask), y: Fp.select(a.y, b.y, mask), z: Fp.select(a.z, b.z, mask))
    }

    /// The affine coordinates, or nil for the identity.
    package var affine: (x: Fp, y: Fp)? {
        if isIdentity { return nil }
        let zi = z.inverse()
        return (x * zi, y * zi)
    }

    /// Whether (X:Y:Z) satisfies Y^2·Z = X^3 + 4·Z^3 (true for the identity).
    package var isOnCurve: Bool {
        y.squared() * z == x.squared() * x + G1Point.b * z.squared() * z
    }
}

extension G1Point: Equatable {
    /// Equality of the points, not of their coordinates.
    package static func == (p: G1Point, q: G1Point) -> Bool {
        p.x * q.z == q.x * p.z && p.y * q.z == q.y * p.z
    }
}
