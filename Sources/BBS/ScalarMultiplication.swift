// Scalar multiplication, shared by G1 and G2 — and the summary of what is constant time.
//
// Secret data: the issuer key SK, the signature's e before it is published, (SK + e)^-1, the
// message scalars while signing (hashes of the client's master key; except those the caller
// declares public, as the badge's expiry and type), and the prover's messages
// and blinding scalars in ProofGen. For these:
// - Fp and Fr arithmetic is branch-free (carries as 0/1 words, final subtractions by masks);
//   Fr inversion is Fermat's a^(r-2): a fixed square-and-multiply chain over a public exponent.
// - `multiplied(by:)` walks fixed four-bit windows (G1: 33 windows over the two GLV halves,
//   split without branches; G2: 64 windows), selects each table entry by scanning the whole table
//   with masks, and uses the complete Renes–Costello–Batina formulas, which need no special case
//   for the identity or for equal points. So neither branches nor memory addresses depend on it.
//   G1's `multiScalarMultiply` (ProofGen; B in the reference `signVariableBase`) is the same
//   scheme over several terms.
// - Sign multiplies fixed public bases only (FixedBase.swift): A = Σ [s_j]G_j over P1, Q_1 and
//   the H_i with s_j = (SK + e)^-1 times 1, the domain or msg_i. `multiScalarMultiplyFixedBase`
//   adds per term one entry of each of 64 precomputed windows (d·16^j·G, d = 1 … 15), chosen by
//   scanning all 15 with masks; a zero digit computes the sum all the same and keeps the old
//   value by a masked select. The mixed addition is complete for every accumulator (entries are
//   never the identity), so no case depends on the digits.
//   With public messages (the badge's), [inv]·C for their cached public part C is the
//   variable-base `multiplied(by:)` above, or a fixed-base term over C's own table once C has
//   been used often; only the secret messages take fixed-base terms over the generators' tables.
// - Hashing secrets (e's input, KeyGen) goes through OpenSSL's SHA-256.
// Not constant time, used on public data only: the `…VariableTime` functions (w-NAF, skipping
// zero digits; Verify, ProofVerify and Sign's cached public part), point decoding and subgroup
// checks, square roots, hash to curve (generator derivation), the pairing, the building of the
// fixed-base tables, and conversions to affine of public points. Compressing A in Sign inverts
// Z with Fermat (constant time) although A is public right after.
// Heap buffers holding secrets (key bytes, limbs, GLV halves, digits, hash inputs) have their
// final size from the start and are wiped before they are freed; BBSSecretKey wipes its own
// storage. Register and stack copies are out of Swift's control and are not wiped.
// The table selections' masks pass through an optimisation barrier (see `equalMask`), and
// DisassemblyCheckTests checks the release objects for jumps fed by the secret digit;
// bench/ct measures the timing of all of the above.

/// What scalar multiplication needs from a projective point type.
package protocol ProjectiveGroupPoint: Sendable, Equatable {
    static var identity: Self { get }
    static func + (p: Self, q: Self) -> Self
    static prefix func - (p: Self) -> Self
    func doubled() -> Self
    static func select(_ a: Self, _ b: Self, _ mask: UInt64) -> Self
    /// [k]P in constant time, for secret scalars.
    func multiplied(by scalar: Fr) -> Self
    /// Σ [k_i]P_i for public scalars (variable time).
    static func multiScalarMultiplyVariableTime(_ points: [Self], _ scalars: [Fr]) -> Self
}

extension G1Point: ProjectiveGroupPoint {}
extension G2Point: ProjectiveGroupPoint {}

extension ProjectiveGroupPoint {
    /// [k]P in constant time: 64 fixed four-bit windows (G1 overrides this with its GLV version).
    package func multiplied(by scalar: Fr) -> Self {
        let (k0, k1, k2, k3) = scalar.plainLimbs
        var limbs = [k0, k1, k2, k3]
        defer { wipe(elements: &limbs) }
        var table = [Self](repeating: .identity, count: 16)
        table[1] = self
        for i in 2..<16 { table[i] = (i & 1 == 0) ? table[i / 2].doubled() : table[i - 1] + self }
        var acc = Self.identity
        for window in (0..<64).reversed() {
            acc = acc.doubled().doubled().doubled().doubled()
            let digit = (limbs[window / 16] >> UInt64(4 * (window % 16))) & 15
            var chosen = Self.identity
            for i in 0..<16 { chosen = Self.select(chosen, table[i], equalMask(UInt64(i), digit)) }
            acc = acc + chosen
        }
        return acc
    }

    /// [k]P for a public scalar; faster, but the time depends on k.
    package func multipliedVariableTime(by scalar: Fr) -> Self {
        Self.multiScalarMultiplyVariableTime([self], [scalar])
    }

    /// [k]P for a public non-negative integer k given as little-endian limbs (may exceed r).
    package func multipliedVariableTime(byInteger limbs: [UInt64]) -> Self {
        Self.interleavedWNAF([self], [wNAF(limbs, width: 5)])
    }

    /// Σ [k_i]P_i for public scalars, interleaving the points so they share their doublings
    /// (G1 overrides this to split each scalar with GLV first).
    package static func multiScalarMultiplyVariableTime(_ points: [Self], _ scalars: [Fr]) -> Self {
        precondition(points.count == scalars.count)
        let digits = scalars.map { s -> [Int8] in
            let (k0, k1, k2, k3) = s.plainLimbs
            return wNAF([k0, k1, k2, k3], width: 5)
        }
        return interleavedWNAF(points, digits)
    }

    /// Σ [k_i]P_i from the w-NAF digits (width 5) of each k_i.
    static func interleavedWNAF(_ points: [Self], _ digits: [[Int8]]) -> Self {
        // Odd multiples P, 3P, …, 15P of each point.
        let tables = points.map { p -> [Self] in
            var t = [p]
            let twice = p.doubled()
            for _ in 1..<8 { t.append(t[t.count - 1] + twice) }
            return t
        }
        let length = digits.map(\.count).max() ?? 0
        var acc = Self.identity
        for position in stride(from: length - 1, through: 0, by: -1) {
            acc = acc.doubled()
            for (i, d) in digits.enumerated() where position < d.count {
                let digit = d[position]
                if digit > 0 {
                    acc = acc + tables[i][Int(digit) / 2]
                } else if digit < 0 {
                    acc = acc + -tables[i][Int(-digit) / 2]
                }
            }
        }
        return acc
    }
}

/// Width-w non-adjacent form of a non-negative integer, least significant digit first:
/// every non-zero digit is odd with |d| < 2^(w-1), followed by at least w-1 zeros.
func wNAF(_ limbs: [UInt64], width w: Int) -> [Int8] {
    var k = limbs + [0]
    var digits = [Int8]()
    digits.reserveCapacity(64 * limbs.count + 1)
    let window = UInt64(1) << UInt64(w)
    func isZero() -> Bool { k.allSatisfy { $0 == 0 } }
    while !isZero() {
        var d: Int64 = 0
        if k[0] & 1 == 1 {
            let low = k[0] & (window - 1)
            if low >= window / 2 {
                d = Int64(low) - Int64(window)
                // k -= d, i.e. k += |d|
                var carry = UInt64(-d)
                for i in 0..<k.count { (k[i], carry) = addWithCarry(k[i], carry, 0) }
            } else {
                d = Int64(low)
                var borrow = low
                for i in 0..<k.count { (k[i], borrow) = subtractWithBorrow(k[i], borrow, 0) }
            }
        }
        digits.append(Int8(d))
        for i in 0..<k.count {  // k >>= 1
            k[i] = (k[i] >> 1) | (i + 1 < k.count ? k[i + 1] << 63 : 0)
        }
    }
    return digits
}
