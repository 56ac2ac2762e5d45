// RFC 9380 hash to G1, suite BLS12381G1_XMD:SHA-256_SSWU_RO_: hash_to_field (two elements),
// simplified SWU onto the 11-isogenous curve E', the isogeny to E, and cofactor clearing by h_eff.
// Inputs here are public (generator seeds, test vectors), so the straightforward, variable-time
// form of the map is used (exceptional case and square test by branches).

/// Hashing byte strings to G1 (random-oracle variant).
package enum HashToG1 {
    /// Bytes per field element in hash_to_field: ceil((381 + 128) / 8).
    static let fieldElementLength = 64

    /// E': y^2 = x^3 + A'·x + B', and the SSWU constant Z = 11.
    static let isoA = Fp(hex: "144698a3b8e9433d693a02c96d4982b0ea985383ee66a8d8e8981aefd881ac98936f8da0e0f97f5cf428082d584c1d")
    static let isoB = Fp(hex: "12e2908d11688030018b12e8753eee3b2016c1f0f24f4070a0b9c14fcef35ef55a23215a316ceaa5d1cc48e98e172be0")
    static let z = Fp(11)

    /// h_eff = 1 - x, the cofactor-clearing multiplier.
    static let hEff: UInt64 = 0xd201_0000_0001_0001

    /// hash_to_curve(msg) with domain separation tag `dst`.
    package static func hash(_ message: some Collection<UInt8>, dst: some Collection<UInt8>) -> G1Point {
        let (u0, u1) = hashToField(message, dst: dst)
        let q = mapToCurve(u0) + mapToCurve(u1)
        return q.multipliedVariableTime(byInteger: [hEff])
    }

    /// hash_to_field with count 2: two elements of Fp from 128 expanded bytes.
    package static func hashToField(_ message: some Collection<UInt8>, dst: some Collection<UInt8>) -> (Fp, Fp) {
        // 128 bytes is always within expand_message_xmd's limits.
        let uniform = try! ExpandMessageXMD.expand(message, dst: dst, length: 2 * fieldElementLength)
        return (reduce64(Array(uniform[0..<64])), reduce64(Array(uniform[64..<128])))
    }

    /// OS2IP of 64 bytes mod p: with value = high·2^256 + low (both < 2^256 < p), the Montgomery
    /// form is mont(high, 2^256·R^2) + mont(low, R^2).
    static func reduce64(_ bytes: [UInt8]) -> Fp {
        let limbs = limbsFromBigEndian(bytes, count: 8)
        let low = Fp(l0: limbs[0], l1: limbs[1], l2: limbs[2], l3: limbs[3], l4: 0, l5: 0)
        let high = Fp(l0: limbs[4], l1: limbs[5], l2: limbs[6], l3: limbs[7], l4: 0, l5: 0)
        return high * twoTo256RSquared + low * Fp.rSquared
    }

    static let twoTo256RSquared = Fp.rSquared * Fp(plainLimbs: [0, 0, 0, 0, 1, 0])

    /// map_to_curve: simplified SWU onto E' followed by the 11-isogeny to E (RFC 9380 §6.6.2, §6.6.3).
    package static func mapToCurve(_ u: Fp) -> G1Point {
        let (xp, yp) = simplifiedSWU(u)
        return isogenyMap(xp, yp)
    }

    /// Simplified SWU for E' (RFC 9380 §6.6.2), returning an affine point of E'.
    static func simplifiedSWU(_ u: Fp) -> (Fp, Fp) {
        let zu2 = z * u.squared()
        let tv1 = (zu2.squared() + zu2).inverse()
        var x1 = (-isoB * isoA.inverse()) * (tv1 + .one)
        if tv1.isZero { x1 = isoB * (z * isoA).inverse() }
        let gx1 = (x1.squared() + isoA) * x1 + isoB
        var x: Fp, y: Fp
        if let y1 = gx1.squareRoot() {
            (x, y) = (x1, y1)
        } else {
            x = zu2 * x1
            let gx2 = (x.squared() + isoA) * x + isoB
            y = gx2.squareRoot()!  // gx1·gx2 = Z^3·u^6·gx1^2 and Z is a non-square, so one of them is square
        }
        if u.sgn0 != y.sgn0 { y = -y }
        return (x, y)
    }

    /// The 11-isogeny E' → E (RFC 9380 Appendix E.2), as a projective point with Z = xDen·yDen.
    static func isogenyMap(_ x: Fp, _ y: Fp) -> G1Point {
        func horner(_ k: [Fp]) -> Fp {
            var acc = k[k.count - 1]
            for c in k.dropLast().reversed() { acc = acc * x + c }
            return acc
        }
        let xNum = horner(Isogeny11.xNumerator)
        let xDen = horner(Isogeny11.xDenominator)
        let yNum = horner(Isogeny11.yNumerator)
        let yDen = horner(Isogeny11.yDenominator)
        // x = xNum/xDen, y = y'·yNum/yDen; common denominator xDen·yDen.
        if xDen.isZero || yDen.isZero { return .identity }
        return G1Point(x: xNum * yDen, y: y * yNum * xDen, z: xDen * yDen)
    }
}
