// The optimal ate pairing on BLS12-381. Verification only: every input is public, so this
// code is variable time (it skips identity inputs, for instance).
//
// Miller loop: the G2 point runs in Jacobian coordinates on the twist; each step yields a line
// ℓ0 + ℓ1·xP·v + ℓ4·yP·v·w (scaled by factors in proper subfields, which the final
// exponentiation erases), multiplied into f with a sparse product. Pairs share f's squarings.

/// The optimal ate pairing and pairing-product checks.
package enum Pairing {
    /// |x| for the curve parameter x = -0xd201000000010000 (the loop runs over its bits).
    static let absX: UInt64 = 0xd201_0000_0001_0000

    /// e(P, Q)^3, where e is the reduced optimal ate pairing (the cube is again a
    /// non-degenerate bilinear map; see `finalExponentiation`).
    package static func pairing(_ p: G1Point, _ q: G2Point) -> Fp12 {
        finalExponentiation(millerLoop([(p, q)]))
    }

    /// Whether Π e(P_i, Q_i) = 1: one shared Miller loop and one final exponentiation.
    package static func isProductOne(_ pairs: [(G1Point, G2Point)]) -> Bool {
        finalExponentiation(millerLoop(pairs)) == .one
    }

    /// The product of the Miller functions f_{x,Q_i}(P_i) (identity inputs contribute 1).
    package static func millerLoop(_ pairs: [(G1Point, G2Point)]) -> Fp12 {
        var ps = [(x: Fp, y: Fp)]()
        var qs = [(x: Fp2, y: Fp2)]()
        for (p, q) in pairs {
            guard let pa = p.affine, let qa = q.affine else { continue }
            ps.append(pa)
            qs.append(qa)
        }
        var ts = qs.map { TwistJacobian(x: $0.x, y: $0.y, z: .one) }
        var f = Fp12.one
        for bit in (0..<63).reversed() {
            f = f.squared()
            for i in ts.indices {
                let l = ts[i].doubleWithLine()
                f = f.multiplied(byLine: l.0, l.1 * ps[i].x, l.2 * ps[i].y)
            }
            if (absX >> UInt64(bit)) & 1 == 1 {
                for i in ts.indices {
                    let l = ts[i].addWithLine(qs[i].x, qs[i].y)
                    f = f.multiplied(byLine: l.0, l.1 * ps[i].x, l.2 * ps[i].y)
                }
            }
        }
        return f.conjugate()  // x < 0
    }

    /// f^(3·(p^12 - 1)/r). The easy part is f^((p^6 - 1)(p^2 + 1)); the hard part uses
    /// 3·(p^4 - p^2 + 1)/r = (x - 1)^2·(x + p)·(x^2 + p^2 - 1) + 3 (Hayashida–Hayasaka–Teruya,
    /// eprint 2020/875), which needs only exponentiations by x and Frobenius maps.
    package static func finalExponentiation(_ f: Fp12) -> Fp12 {
        var t = f.conjugate() * f.inverse()
        t = t.frobenius().frobenius() * t
        let y0 = powerX(t) * t.conjugate()
        let y1 = powerX(y0) * y0.conjugate()
        let y2 = powerX(y1) * y1.frobenius()
        let y3 = powerX(powerX(y2)) * y2.frobenius().frobenius() * y2.conjugate()
        return y3 * t.cyclotomicSquared() * t
    }

    /// a^x for a in the cyclotomic subgroup (x < 0, so the result is conjugated).
    static func powerX(_ a: Fp12) -> Fp12 {
        var r = a
        for bit in (0..<63).reversed() {
            r = r.cyclotomicSquared()
            if (absX >> UInt64(bit)) & 1 == 1 { r = r * a }
        }
        return r.conjugate()
    }
}

/// A point of the twist in Jacobian coordinates (x = X/Z^2, y = Y/Z^3), for the Miller loop.
struct TwistJacobian {
    var x: Fp2
    var y: Fp2
    var z: Fp2

    /// T ← 2T; returns the tangent line's (ℓ0, ℓ1, ℓ4) before multiplying ℓ1 by xP and ℓ4 by yP.
    /// The line is scaled by 2·Y·Z^3: ℓ0 = 3X^3 - 2Y^2, ℓ1 = -3X^2·Z^2, ℓ4 = 2Y·Z^3.
    mutating func doubleWithLine() -> (Fp2, Fp2, Fp2) {
        let a = x.squared()
        let b = y.squared()
        let c = b.squared()
        let zz = z.squared()
        let d = ((x + b).squared() - a - c).doubled()
        let e = a.doubled() + a
        let l0 = e * x - b.doubled()
        let l1 = -(e * zz)
        let x3 = e.squared() - d.doubled()
        let c8 = c.doubled().doubled().doubled()
        let y3 = e * (d - x3) - c8
        let z3 = (y + z).squared() - b - zz
        x = x3
        y = y3
        z = z3
        return (l0, l1, z3 * zz)
    }

    /// T ← T + Q for affine Q; returns the chord's (ℓ0, ℓ1, ℓ4), scaled by 2·Z·(xQ·Z^2 - X):
    /// ℓ0 = r·xQ - yQ·Z3, ℓ1 = -r, ℓ4 = Z3 with r = 2(yQ·Z^3 - Y).
    mutating func addWithLine(_ qx: Fp2, _ qy: Fp2) -> (Fp2, Fp2, Fp2) {
        let zz = z.squared()
        let u = qx * zz - x
        let s = qy * z * zz - y
        let hh = u.squared()
        let i = hh.doubled().doubled()
        let j = u * i
        let r = s.doubled()
        let v = x * i
        let x3 = r.squared() - j - v.doubled()
        let y3 = r * (v - x3) - (y * j).doubled()
        let z3 = (z + u).squared() - zz - hh
        x = x3
        y = y3
        z = z3
        return (r * qx - qy * z3, -r, z3)
    }
}
