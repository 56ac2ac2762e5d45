// The GLV endomorphism of G1: φ(x, y) = (β·x, y) with β a cube root of unity in Fp acts on G1 as
// multiplication by λ = z - 1, z = x^2 (x the curve parameter). Writing k = q·z + t (t < z) gives
// k = q·λ + (q + t): two scalars of about 128 bits instead of one of 255, so a scalar
// multiplication needs half the doublings.
//
// The split is constant time: q comes from a Barrett quotient (a fixed-size product and a shift)
// corrected by one masked subtraction, with no branch on the scalar.

enum GLV {
    /// β with φ(P) = [z - 1]P on G1.
    static let beta = Fp(hex: "1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd00000000aaac")
    /// β² with φ²(P) = [-z]P, the endomorphism of the G1 membership test.
    static let betaSquared = Fp(hex: "5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe")
    /// z = x^2, little-endian limbs.
    static let z: [UInt64] = [0x0000_0001_0000_0000, 0xac45_a401_0001_a402]
    /// floor(2^384 / z).
    static let barrett: [UInt64] = [0xa1a8_72d6_818b_e409, 0x034e_b4b9_27ad_c027, 0x63f6_e522_f6cf_ee2e,
                                    0x7c6b_ecf1_e01f_aadd, 0x1]

    /// (k1, k2) with k = k1 + k2·λ mod r, both < 2^130, as three little-endian limbs each.
    /// Every intermediate buffer is wiped before it is freed: with the public e, the halves of
    /// (SK + e)^-1 give SK.
    static func split(_ k: (UInt64, UInt64, UInt64, UInt64)) -> (k1: (UInt64, UInt64, UInt64), k2: (UInt64, UInt64, UInt64)) {
        var scalar = [k.0, k.1, k.2, k.3]
        // q ∈ {floor(k/z) - 1, floor(k/z)} (Barrett with k < 2^384).
        var wide = multiplyFixed(scalar, barrett)
        var q = [wide[6], wide[7], wide[8]]
        // t = k - q·z < 2z, then one masked correction.
        var qz = multiplyFixed(q, z)
        var t = [UInt64](repeating: 0, count: 4)
        var reduced = [UInt64](repeating: 0, count: 4)
        defer {
            wipe(elements: &scalar)
            wipe(elements: &wide)
            wipe(elements: &q)
            wipe(elements: &qz)
            wipe(elements: &t)
            wipe(elements: &reduced)
        }
        var borrow: UInt64 = 0
        for i in 0..<4 { (t[i], borrow) = subtractWithBorrow(scalar[i], qz[i], borrow) }
        borrow = 0
        for i in 0..<4 { (reduced[i], borrow) = subtractWithBorrow(t[i], i < 2 ? z[i] : 0, borrow) }
        let useReduced = 0 &- (borrow ^ 1)  // all ones when t ≥ z
        for i in 0..<4 { t[i] = t[i] ^ ((t[i] ^ reduced[i]) & useReduced) }
        var carry = useReduced & 1
        for i in 0..<3 { (q[i], carry) = addWithCarry(q[i], 0, carry) }
        // k1 = q + t, k2 = q.
        let (a0, c0) = addWithCarry(q[0], t[0], 0)
        let (a1, c1) = addWithCarry(q[1], t[1], c0)
        let (a2, _) = addWithCarry(q[2], t[2], c1)
        return ((a0, a1, a2), (q[0], q[1], q[2]))
    }

    /// Schoolbook product of little-endian limb arrays; the loop bounds depend only on the sizes.
    static func multiplyFixed(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        var out = [UInt64](repeating: 0, count: a.count + b.count)
        for i in 0..<a.count {
            var carry: UInt64 = 0
            for j in 0..<b.count { (carry, out[i + j]) = multiplyAdd(a[i], b[j], out[i + j], carry) }
            out[i + b.count] = carry
        }
        return out
    }
}

extension G1Point {
    /// φ(P) = (β·X : Y : Z).
    @inline(__always)
    func endomorphism() -> G1Point { G1Point(x: x * GLV.beta, y: y, z: z) }

    /// [k]P in constant time with the GLV split: 33 four-bit windows over two ~130-bit scalars,
    /// each window adding one entry of each 16-entry table, chosen by a full masked scan.
    package func multiplied(by scalar: Fr) -> G1Point {
        var scalars = [scalar]
        defer { wipe(elements: &scalars) }
        return G1Point.multiScalarMultiply([self], scalars)
    }

    /// Σ [k_i]P_i in constant time (for scalars that must not leak): every scalar is split by GLV,
    /// then all terms share 33 windows of four doublings, each window adding one entry of every
    /// term's tables, selected by scanning the whole table with masks.
    package static func multiScalarMultiply(_ points: [G1Point], _ scalars: [Fr]) -> G1Point {
        precondition(points.count == scalars.count)
        // Three limbs per GLV half, two halves per term, in one buffer of its final size.
        var digits = [UInt64](repeating: 0, count: 6 * scalars.count)
        defer { wipe(elements: &digits) }
        var tables = [[G1Point]]()
        tables.reserveCapacity(2 * points.count)
        for (n, (p, s)) in zip(points, scalars).enumerated() {
            let (k1, k2) = GLV.split(s.plainLimbs)
            (digits[6 * n], digits[6 * n + 1], digits[6 * n + 2]) = k1
            (digits[6 * n + 3], digits[6 * n + 4], digits[6 * n + 5]) = k2
            var table = [G1Point](repeating: .identity, count: 16)
            table[1] = p
            for i in 2..<16 { table[i] = (i & 1 == 0) ? table[i / 2].doubled() : table[i - 1] + p }
            tables.append(table)
            tables.append(table.map { $0.endomorphism() })
        }
        var acc = G1Point.identity
        for window in (0..<33).reversed() {
            acc = acc.doubled().doubled().doubled().doubled()
            let limb = window / 16, shift = UInt64(4 * (window % 16))
            for (h, table) in tables.enumerated() {
                let d = (digits[3 * h + limb] >> shift) & 15
                var chosen = G1Point.identity
                for i in 0..<16 { chosen = G1Point.select(chosen, table[i], equalMask(UInt64(i), d)) }
                acc = acc + chosen
            }
        }
        return acc
    }

    /// Σ [k_i]P_i for public scalars: each term split by GLV, then one interleaved w-NAF pass.
    package static func multiScalarMultiplyVariableTime(_ points: [G1Point], _ scalars: [Fr]) -> G1Point {
        precondition(points.count == scalars.count)
        var allPoints = [G1Point](), digits = [[Int8]]()
        for (p, s) in zip(points, scalars) {
            let (k1, k2) = GLV.split(s.plainLimbs)
            allPoints += [p, p.endomorphism()]
            digits += [wNAF([k1.0, k1.1, k1.2], width: 5), wNAF([k2.0, k2.1, k2.2], width: 5)]
        }
        return interleavedWNAF(allPoints, digits)
    }

    /// Whether P lies in G1: φ²(P) = [-x^2]P (Scott, eprint 2021/1130 §6; proof in 2022/352),
    /// two multiplications by the 64-bit |x| instead of one by r.
    package var isInSubgroup: Bool {
        let xxP = multipliedVariableTime(byInteger: [Pairing.absX]).multipliedVariableTime(byInteger: [Pairing.absX])
        return G1Point(x: x * GLV.betaSquared, y: y, z: z) == -xxP
    }
}
