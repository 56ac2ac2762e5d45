// Points of edwards25519 (−x² + y² = 1 + d·x²·y²) in the representations of Hisil, Wong, Carter
// and Dawson ("Twisted Edwards curves revisited", 2008). Their a = −1 unified addition and
// doubling are complete on this curve (d is not a square), so small-order and mixed-order
// points, which a verifier must handle exactly as OpenSSL does, need no special case.

/// Extended coordinates: x = X/Z, y = Y/Z, x·y = T/Z.
struct ExtendedPoint {
    var x: FieldElement, y: FieldElement, z: FieldElement, t: FieldElement

    /// The cached form used as the second operand of an addition.
    @inline(__always)
    var cached: CachedPoint {
        CachedPoint(yPlusX: y + x, yMinusX: y - x, z: z, t2d: t * FieldElement.d2)
    }

    @inline(__always)
    var projective: ProjectivePoint { ProjectivePoint(x: x, y: y, z: z) }

    @inline(__always)
    var negated: ExtendedPoint { ExtendedPoint(x: -x, y: y, z: z, t: -t) }

    /// self + q, or self − q when `negate`.
    @inline(__always)
    func adding(_ q: CachedPoint, negate: Bool = false) -> CompletedPoint {
        let ypx = y + x, ymx = y - x
        let a = ymx * (negate ? q.yPlusX : q.yMinusX)
        let b = ypx * (negate ? q.yMinusX : q.yPlusX)
        let c = t * q.t2d
        let zz = z * q.z
        let d = zz + zz
        return negate ? CompletedPoint(x: b - a, y: b + a, z: d - c, t: d + c)
                      : CompletedPoint(x: b - a, y: b + a, z: d + c, t: d - c)
    }

    /// self ± q for an affine q (Z = 1): one multiplication fewer.
    @inline(__always)
    func adding(_ q: AffineNielsPoint, negate: Bool) -> CompletedPoint {
        let ypx = y + x, ymx = y - x
        let a = ymx * (negate ? q.yPlusX : q.yMinusX)
        let b = ypx * (negate ? q.yMinusX : q.yPlusX)
        let c = t * q.xy2d
        let d = z + z
        return negate ? CompletedPoint(x: b - a, y: b + a, z: d - c, t: d + c)
                      : CompletedPoint(x: b - a, y: b + a, z: d + c, t: d - c)
    }
}

/// Projective coordinates (x = X/Z, y = Y/Z): what a doubling needs, one multiplication
/// cheaper to reach from a completed point than extended coordinates.
struct ProjectivePoint {
    var x: FieldElement, y: FieldElement, z: FieldElement

    static let identity = ProjectivePoint(x: .zero, y: .one, z: .one)

    /// 2·self (dbl-2008-hwcd with a = −1).
    @inline(__always)
    func doubled() -> CompletedPoint {
        let xx = x.squared(), yy = y.squared()
        let zz = z.squared()
        let zz2 = zz + zz
        let xy = (x + y).squared()
        let sum = yy + xx
        let diff = yy - xx
        return CompletedPoint(x: xy - sum, y: sum, z: diff, t: zz2 - diff)
    }

    /// The 32-byte encoding of RFC 8032 §5.1.2: canonical y, and x's sign in the top bit.
    func encode(to out: UnsafeMutableRawBufferPointer) {
        let inverse = z.inverted()
        let ax = x * inverse, ay = y * inverse
        ay.write(to: out)
        if ax.isNegative { out[31] |= 0x80 }
    }
}

/// The result of an addition or doubling before its last multiplications:
/// x = X/Z, y = Y/T.
struct CompletedPoint {
    var x: FieldElement, y: FieldElement, z: FieldElement, t: FieldElement

    @inline(__always)
    var extended: ExtendedPoint { ExtendedPoint(x: x * t, y: y * z, z: z * t, t: x * y) }

    @inline(__always)
    var projective: ProjectivePoint { ProjectivePoint(x: x * t, y: y * z, z: z * t) }
}

/// (Y + X, Y − X, Z, 2d·T) of a point: the operand form of `ExtendedPoint.adding(_:negate:)`.
struct CachedPoint {
    var yPlusX: FieldElement, yMinusX: FieldElement, z: FieldElement, t2d: FieldElement
}

/// (y + x, y − x, 2d·x·y) of an affine point: entries of the fixed base-point table.
struct AffineNielsPoint {
    var yPlusX: FieldElement, yMinusX: FieldElement, xy2d: FieldElement
}

extension ExtendedPoint {
    /// Decodes 32 bytes exactly as OpenSSL 3's `ge_frombytes_vartime` does: y is the low 255
    /// bits taken as is (a y ≥ p is not rejected), x = ±√((y² − 1)/(d·y² + 1)) with the sign
    /// the top bit asks for; nil only when that is not a square. x = 0 with the sign bit set is
    /// accepted (as x = 0), as OpenSSL accepts it.
    init?(decoding bytes: UnsafeRawBufferPointer) {
        let y = FieldElement(bytes: bytes)
        let yy = y.squared()
        let u = yy - .one
        let v = yy * FieldElement.d + .one
        // Candidate x = u·(uv)^((p−5)/8): then v·x² = u·(uv)^((p−1)/4), which is ±u when u/v
        // is a square, ±√−1·u when it is not.
        var x = u * (u * v).powPMinus5Over8()
        let vxx = x.squared() * v
        if !(vxx - u).isZero {
            guard (vxx + u).isZero else { return nil }
            x = x * FieldElement.sqrtMinusOne
        }
        if x.isNegative != (bytes[31] >> 7 == 1) { x = -x }
        self.init(x: x, y: y, z: .one, t: x * y)
    }
}

/// The base point B of RFC 8032 §5.1 (y = 4/5, x even).
let ed25519BasePoint: ExtendedPoint = {
    let encoding: [UInt8] = [0x58] + [UInt8](repeating: 0x66, count: 31)
    return encoding.withUnsafeBytes { ExtendedPoint(decoding: $0)! }
}()

/// The odd multiples B, 3B, 5B, …, 127B in affine Niels form, for width-8 w-NAF digits of S.
/// Built once (64 inversions) at first use; a verification then adds table points with three
/// multiplications each and never doubles B.
let ed25519BaseOddMultiples: [AffineNielsPoint] = {
    let b = ed25519BasePoint
    let twoB = b.projective.doubled().extended.cached
    var point = b
    var table: [AffineNielsPoint] = []
    table.reserveCapacity(64)
    for _ in 0..<64 {
        let inverse = point.z.inverted()
        let x = point.x * inverse, y = point.y * inverse
        table.append(AffineNielsPoint(yPlusX: y + x, yMinusX: y - x, xy2d: x * y * FieldElement.d2))
        point = point.adding(twoB).extended
    }
    return table
}()
