// Fp beyond the generated core: conversions, comparisons, exponentiation-based inverse and
// square root. Everything here runs in time independent of the element's value, except the
// conversions from bytes, which only reveal whether the input is canonical.

extension Fp: Equatable {
    /// Big-endian byte length of an element.
    package static let byteCount = 48

    /// The element with the small integer value `n`.
    package init(_ n: UInt64) {
        self = Fp(l0: n, l1: 0, l2: 0, l3: 0, l4: 0, l5: 0) * Fp.rSquared
    }

    /// The element whose integer value has little-endian limbs `limbs`, which must be < p.
    init(plainLimbs limbs: [UInt64]) {
        self = Fp(l0: limbs[0], l1: limbs[1], l2: limbs[2], l3: limbs[3], l4: limbs[4], l5: limbs[5]) * Fp.rSquared
    }

    /// The canonical big-endian encoding's inverse; nil unless `bytes` is 48 bytes holding a value < p.
    package init?(bigEndian bytes: some Collection<UInt8>) {
        guard bytes.count == Fp.byteCount else { return nil }
        let limbs = limbsFromBigEndian(bytes, count: 6)
        guard isLessThan(limbs, Fp.modulusLimbs) else { return nil }
        self.init(plainLimbs: limbs)
    }

    /// A constant written as big-endian hex (with or without 0x); traps on bad input.
    init(hex: String) {
        var digits = Array(hex.utf8)
        if digits.count >= 2, digits[0] == 0x30, digits[1] | 0x20 == 0x78 { digits.removeFirst(2) }
        let padded = [UInt8](repeating: 0x30, count: 96 - digits.count) + digits
        let bytes = stride(from: 0, to: 96, by: 2).map { UInt8(String(decoding: padded[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
        self = Fp(bigEndian: bytes)!
    }

    /// The integer value (out of Montgomery form), little-endian limbs.
    var plainLimbs: [UInt64] {
        let v = self * Fp(l0: 1, l1: 0, l2: 0, l3: 0, l4: 0, l5: 0)
        return [v.l0, v.l1, v.l2, v.l3, v.l4, v.l5]
    }

    /// The canonical 48-byte big-endian encoding of the integer value.
    package var bigEndianBytes: [UInt8] { bytesFromLimbs(plainLimbs) }

    package static func == (a: Fp, b: Fp) -> Bool {
        ((a.l0 ^ b.l0) | (a.l1 ^ b.l1) | (a.l2 ^ b.l2) | (a.l3 ^ b.l3) | (a.l4 ^ b.l4) | (a.l5 ^ b.l5)) == 0
    }

    /// All ones when zero, else zero.
    @inline(__always)
    var zeroMask: UInt64 { wordZeroMask(l0 | l1 | l2 | l3 | l4 | l5) }

    package var isZero: Bool { (l0 | l1 | l2 | l3 | l4 | l5) == 0 }

    /// `b` where `mask` is all ones, `a` where it is zero; no branch.
    @inline(__always)
    static func select(_ a: Fp, _ b: Fp, _ mask: UInt64) -> Fp {
        Fp(l0: a.l0 ^ ((a.l0 ^ b.l0) & mask), l1: a.l1 ^ ((a.l1 ^ b.l1) & mask),
           l2: a.l2 ^ ((a.l2 ^ b.l2) & mask), l3: a.l3 ^ ((a.l3 ^ b.l3) & mask),
           l4: a.l4 ^ ((a.l4 ^ b.l4) & mask), l5: a.l5 ^ ((a.l5 ^ b.l5) & mask))
    }

    @inline(__always)
    package func squared() -> Fp { self * self }

    @inline(__always)
    package func doubled() -> Fp { self + self }

    /// self^e for a public exponent `e` (little-endian limbs); the base may be secret.
    func power(_ e: [UInt64]) -> Fp {
        var result = Fp.one
        for limb in e.reversed() {
            for bit in (0..<64).reversed() {
                result = result.squared()
                if (limb >> UInt64(bit)) & 1 == 1 { result = result * self }
            }
        }
        return result
    }

    /// The multiplicative inverse (0 maps to 0), by Fermat: self^(p-2).
    package func inverse() -> Fp { power(Fp.pMinus2) }

    /// A square root when one exists (p ≡ 3 mod 4, so self^((p+1)/4) is one).
    package func squareRoot() -> Fp? {
        let s = power(Fp.pPlus1Over4)
        return s.squared() == self ? s : nil
    }

    /// Whether the element is a square (0 counts as one).
    package var isSquare: Bool {
        let l = power(Fp.pMinus1Over2)
        return l == .one || l.isZero
    }

    /// RFC 9380 sgn0: the parity of the integer value.
    package var sgn0: Bool { plainLimbs[0] & 1 == 1 }

    /// Whether the integer value exceeds (p-1)/2: the "sort" bit of the point encoding.
    package var isLexicographicallyLargest: Bool {
        !isLessThan(plainLimbs, Fp.pMinus1Over2PlusOne)
    }

    static let pMinus2: [UInt64] = subtractSmall(modulusLimbs, 2)
    static let pPlus1Over4: [UInt64] = shiftRight(addSmall(modulusLimbs, 1), by: 2)
    static let pMinus1Over2: [UInt64] = shiftRight(subtractSmall(modulusLimbs, 1), by: 1)
    static let pMinus1Over2PlusOne: [UInt64] = addSmall(pMinus1Over2, 1)
}

/// Plain multi-precision helpers for deriving exponents from the modulus at start-up.
func subtractSmall(_ a: [UInt64], _ k: UInt64) -> [UInt64] {
    var out = a, borrow = k
    for i in 0..<out.count { (out[i], borrow) = subtractWithBorrow(out[i], borrow, 0) }
    return out
}

func addSmall(_ a: [UInt64], _ k: UInt64) -> [UInt64] {
    var out = a, carry = k
    for i in 0..<out.count { (out[i], carry) = addWithCarry(out[i], carry, 0) }
    return out
}

func shiftRight(_ a: [UInt64], by s: UInt64) -> [UInt64] {
    var out = a
    for i in 0..<out.count {
        let next = i + 1 < a.count ? a[i + 1] : 0
        out[i] = (a[i] >> s) | (s == 0 ? 0 : next << (64 - s))
    }
    return out
}
