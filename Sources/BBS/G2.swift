// G2: points of the sextic twist E'(Fp2): y^2 = x^3 + 4(1 + u), in homogeneous projective
// coordinates, with the same complete Renes–Costello–Batina formulas as G1 (see G1.swift).

/// A point of the twist E'(Fp2), projective coordinates; the group G2 is its order-r subgroup.
package struct G2Point: Sendable {
    package var x: Fp2
    package var y: Fp2
    package var z: Fp2

    @inline(__always)
    package init(x: Fp2, y: Fp2, z: Fp2) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The affine point (x, y); the caller vouches that it is on the curve.
    package init(affineX x: Fp2, y: Fp2) {
        self.init(x: x, y: y, z: .one)
    }

    package static let identity = G2Point(x: .zero, y: .one, z: .zero)

    /// The standard generator of G2.
    package static let generator = G2Point(
        affineX: Fp2(Fp(hex: "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"),
                     Fp(hex: "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e")),
        y: Fp2(Fp(hex: "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"),
               Fp(hex: "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be")))

    /// The twist's b' = 4(1 + u).
    static let b = Fp2(Fp(4), Fp(4))

    /// 3b'·t = 12·ξ·t by additions.
    @inline(__always)
    static func times3b(_ t: Fp2) -> Fp2 {
        let t4 = t.timesXi().doubled().doubled()
        return t4.doubled() + t4
    }

    package var isIdentity: Bool { z.isZero }

    /// Complete addition (RCB Algorithm 7): 12 multiplications.
    package static func + (p: G2Point, q: G2Point) -> G2Point {
        var t0 = p.x * q.x
        var t1 = p.y * q.y
        var t2 = p.z * q.z
        var t3 = (p.x + p.y) * (q.x + q.y)
        var t4 = t0 + t1
        t3 = t3 - t4
        t4 = (p.y + p.z) * (q.y + q.z)
        var x3 = t1 + t2
        t4 = t4 - x3
        x3 = (p.x + p.z) * (q.x + q.z)
        var y3 = t0 + t2
        y3 = x3 - y3
        x3 = t0 + t0
        t0 = x3 + t0
        t2 = times3b(t2)
        var z3 = t1 + t2
        t1 = t1 - t2
        y3 = times3b(y3)
        x3 = t4 * y3
        t2 = t3 * t1
        x3 = t2 - x3
        y3 = y3 * t0
        t1 = t1 * z3
        y3 = t1 + y3
        t0 = t0 * t3
        z3 = z3 * t4
        z3 = z3 + t0
        return G2Point(x: x3, y: y3, z: z3)
    }

    /// Complete doubling (RCB Algorithm 9): 6 multiplications and 2 squarings.
    package func doubled() -> G2Point {
        var t0 = y.squared()
        var z3 = t0.doubled().doubled().doubled()
        var t1 = y * z
        var t2 = z.squared()
        t2 = G2Point.times3b(t2)
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
        return G2Point(x: x3, y: y3, z: z3)
    }

    @inline(__always)
    package static prefix func - (p: G2Point) -> G2Point { G2Point(x: p.x, y: -p.y, z: p.z) }

    package static func - (p: G2Point, q: G2Point) -> G2Point { p + (-q) }

    /// `b` where `mask` is all ones, `a` where it is zero; no branch.
    @inline(__always)
    package static func select(_ a: G2Point, _ b: G2Point, _ mask: UInt64) -> G2Point {
        G2Point(x: Fp2.select(a.x, b.x, mask), y: Fp2.select(a.y, b.y, mask), z: Fp2.select(a.z, b.z, mask))
    }

    /// The affine coordinates, or nil for the identity.
    package var affine: (x: Fp2, y: Fp2)? {
        if isIdentity { return nil }
        let zi = z.inverse()
        return (x * zi, y * zi)
    }

    /// Whether (X:Y:Z) satisfies Y^2·Z = X^3 + b'·Z^3 (true for the identity).
    package var isOnCurve: Bool {
        y.squared() * z == x.squared() * x + G2Point.b * z.squared() * z
    }
}

extension G2Point: Equatable {
    /// Equality of the points, not of their coordinates.
    package static func == (p: G2Point, q: G2Point) -> Bool {
        p.x * q.z == q.x * p.z && p.y * q.z == q.y * p.z
    }
}
