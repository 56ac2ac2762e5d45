/// An element of GF(2^255 − 19) in radix 2^51: value = l0 + l1·2^51 + l2·2^102 + l3·2^153 + l4·2^204.
///
/// Limbs are kept "loose": every operation's result has limbs below 2^51 + 2^14, and `*` and
/// `squared()` accept limbs below 2^54, so a few additions may be chained before a product
/// without carrying. For public data only: nothing here runs in constant time.
struct FieldElement {
    var l0: UInt64, l1: UInt64, l2: UInt64, l3: UInt64, l4: UInt64

    static let mask: UInt64 = (1 << 51) - 1
    static let zero = FieldElement(l0: 0, l1: 0, l2: 0, l3: 0, l4: 0)
    static let one = FieldElement(l0: 1, l1: 0, l2: 0, l3: 0, l4: 0)
    /// d = −121665/121666, the Edwards curve constant (RFC 8032 §5.1).
    static let d = FieldElement(l0: 0x34dca135978a3, l1: 0x1a8283b156ebd, l2: 0x5e7a26001c029,
                                l3: 0x739c663a03cbb, l4: 0x52036cee2b6ff)
    /// 2d, as the cached points of the addition formula carry it.
    static let d2 = FieldElement(l0: 0x69b9426b2f159, l1: 0x35050762add7a, l2: 0x3cf44c0038052,
                                 l3: 0x6738cc7407977, l4: 0x2406d9dc56dff)
    /// A square root of −1, 2^((p−1)/4).
    static let sqrtMinusOne = FieldElement(l0: 0x61b274a0ea0b0, l1: 0xd5a5fc8f189d, l2: 0x7ef5e9cbd0c60,
                                           l3: 0x78595a6804c9e, l4: 0x2b8324804fc1d)

    @inline(__always)
    init(l0: UInt64, l1: UInt64, l2: UInt64, l3: UInt64, l4: UInt64) {
        self.l0 = l0; self.l1 = l1; self.l2 = l2; self.l3 = l3; self.l4 = l4
    }

    /// The low 255 bits of a 32-byte little-endian string; the top bit is ignored and a value
    /// in [p, 2^255) is taken as is (OpenSSL's `fe_frombytes` does the same).
    @inline(__always)
    init(bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count >= 32)
        func word(_ offset: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
        let m = FieldElement.mask
        l0 = word(0) & m
        l1 = (word(6) >> 3) & m
        l2 = (word(12) >> 6) & m
        l3 = (word(19) >> 1) & m
        l4 = (word(24) >> 12) & m
    }

    /// Carries every limb into the next, the top one back into l0 times 19 (2^255 ≡ 19).
    @inline(__always)
    func carried() -> FieldElement {
        let m = FieldElement.mask
        var r = self
        r.l1 &+= r.l0 >> 51; r.l0 &= m
        r.l2 &+= r.l1 >> 51; r.l1 &= m
        r.l3 &+= r.l2 >> 51; r.l2 &= m
        r.l4 &+= r.l3 >> 51; r.l3 &= m
        r.l0 &+= 19 &* (r.l4 >> 51); r.l4 &= m
        return r
    }

    @inline(__always)
    static func + (a: FieldElement, b: FieldElement) -> FieldElement {
        FieldElement(l0: a.l0 &+ b.l0, l1: a.l1 &+ b.l1, l2: a.l2 &+ b.l2, l3: a.l3 &+ b.l3, l4: a.l4 &+ b.l4)
    }

    /// a − b as a + 16p − b: 16p's limbs (≥ 2^55 − 304) exceed any loose limb below 2^54, so
    /// no limb underflows; the result is carried so it can be subtracted from again.
    @inline(__always)
    static func - (a: FieldElement, b: FieldElement) -> FieldElement {
        let p0: UInt64 = 0x7ffffffffffed << 4, pi: UInt64 = 0x7ffffffffffff << 4
        return FieldElement(l0: (a.l0 &+ p0) &- b.l0, l1: (a.l1 &+ pi) &- b.l1, l2: (a.l2 &+ pi) &- b.l2,
                            l3: (a.l3 &+ pi) &- b.l3, l4: (a.l4 &+ pi) &- b.l4).carried()
    }

    @inline(__always)
    static prefix func - (a: FieldElement) -> FieldElement { FieldElement.zero - a }

    @inline(__always)
    static func * (a: FieldElement, b: FieldElement) -> FieldElement {
        let m = mask
        let b1 = 19 &* b.l1, b2 = 19 &* b.l2, b3 = 19 &* b.l3, b4 = 19 &* b.l4
        // Column by column, each carried into the next as soon as it is summed: one 128-bit
        // accumulator live at a time keeps the limbs in registers. For limbs below 2^54 a column
        // (carry in included) stays below 2^115, so each carry fits a word; the last column has no
        // factor 19, stays just above 5·2^108, and 19 times its carry (about 5·2^57) is below 2^64.
        // `squared()` follows the same order.
        var c = Wide(a.l0, b.l0); c.add(a.l1, b4); c.add(a.l2, b3); c.add(a.l3, b2); c.add(a.l4, b1)
        var r0 = c.lo & m
        c = Wide(c.shifted51); c.add(a.l0, b.l1); c.add(a.l1, b.l0); c.add(a.l2, b4); c.add(a.l3, b3); c.add(a.l4, b2)
        let r1 = c.lo & m
        c = Wide(c.shifted51); c.add(a.l0, b.l2); c.add(a.l1, b.l1); c.add(a.l2, b.l0); c.add(a.l3, b4); c.add(a.l4, b3)
        let r2 = c.lo & m
        c = Wide(c.shifted51); c.add(a.l0, b.l3); c.add(a.l1, b.l2); c.add(a.l2, b.l1); c.add(a.l3, b.l0); c.add(a.l4, b4)
        let r3 = c.lo & m
        c = Wide(c.shifted51); c.add(a.l0, b.l4); c.add(a.l1, b.l3); c.add(a.l2, b.l2); c.add(a.l3, b.l1); c.add(a.l4, b.l0)
        let r4 = c.lo & m
        r0 &+= 19 &* c.shifted51
        return FieldElement(l0: r0 & m, l1: r1 &+ (r0 >> 51), l2: r2, l3: r3, l4: r4)
    }

    @inline(__always)
    func squared() -> FieldElement {
        let m = FieldElement.mask
        let d0 = 2 &* l0, d1 = 2 &* l1
        let f3 = 19 &* l3, f4 = 19 &* l4
        var c = Wide(l0, l0); c.add(d1, f4); c.add(2 &* l2, f3)
        var r0 = c.lo & m
        c = Wide(c.shifted51); c.add(d0, l1); c.add(2 &* l2, f4); c.add(l3, f3)
        let r1 = c.lo & m
        c = Wide(c.shifted51); c.add(d0, l2); c.add(l1, l1); c.add(2 &* l3, f4)
        let r2 = c.lo & m
        c = Wide(c.shifted51); c.add(d0, l3); c.add(d1, l2); c.add(l4, f4)
        let r3 = c.lo & m
        c = Wide(c.shifted51); c.add(d0, l4); c.add(d1, l3); c.add(l2, l2)
        let r4 = c.lo & m
        r0 &+= 19 &* c.shifted51
        return FieldElement(l0: r0 & m, l1: r1 &+ (r0 >> 51), l2: r2, l3: r3, l4: r4)
    }

    /// self^(2^n), by n squarings.
    @inline(__always)
    func squared(times n: Int) -> FieldElement {
        var r = self
        for _ in 0..<n { r = r.squared() }
        return r
    }

    /// (self^(2^250 − 1), self^11): the shared stem of the inversion and square-root chains.
    private func pow2250Minus1() -> (FieldElement, FieldElement) {
        let z2 = squared()
        let z9 = z2.squared(times: 2) * self
        let z11 = z9 * z2
        let z5 = z11.squared() * z9                    // 2^5 − 1
        let z10 = z5.squared(times: 5) * z5            // 2^10 − 1
        let z20 = z10.squared(times: 10) * z10         // 2^20 − 1
        let z40 = z20.squared(times: 20) * z20         // 2^40 − 1
        let z50 = z40.squared(times: 10) * z10         // 2^50 − 1
        let z100 = z50.squared(times: 50) * z50        // 2^100 − 1
        let z200 = z100.squared(times: 100) * z100     // 2^200 − 1
        let z250 = z200.squared(times: 50) * z50       // 2^250 − 1
        return (z250, z11)
    }

    /// self^(p − 2) = 1/self (0 for 0).
    func inverted() -> FieldElement {
        let (z250, z11) = pow2250Minus1()
        return z250.squared(times: 5) * z11            // 2^255 − 32 + 11 = p − 2
    }

    /// self^((p − 5)/8) = self^(2^252 − 3), the exponent of the square-root candidate.
    func powPMinus5Over8() -> FieldElement {
        let (z250, _) = pow2250Minus1()
        return z250.squared(times: 2) * self
    }

    /// The canonical value (in [0, p)) as limbs below 2^51.
    func canonical() -> FieldElement {
        // Two carries bring the value below 2^255 + 19·2 < 2p; then subtract p once if value ≥ p,
        // found as whether value + 19 reaches 2^255.
        var r = carried().carried()
        var q = (r.l0 &+ 19) >> 51
        q = (r.l1 &+ q) >> 51
        q = (r.l2 &+ q) >> 51
        q = (r.l3 &+ q) >> 51
        q = (r.l4 &+ q) >> 51
        r.l0 &+= 19 &* q
        let m = FieldElement.mask
        r.l1 &+= r.l0 >> 51; r.l0 &= m
        r.l2 &+= r.l1 >> 51; r.l1 &= m
        r.l3 &+= r.l2 >> 51; r.l2 &= m
        r.l4 &+= r.l3 >> 51; r.l3 &= m
        r.l4 &= m
        return r
    }

    /// The canonical 32-byte little-endian encoding, written to `out`.
    func write(to out: UnsafeMutableRawBufferPointer) {
        let c = canonical()
        out.storeBytes(of: (c.l0 | c.l1 << 51).littleEndian, toByteOffset: 0, as: UInt64.self)
        out.storeBytes(of: (c.l1 >> 13 | c.l2 << 38).littleEndian, toByteOffset: 8, as: UInt64.self)
        out.storeBytes(of: (c.l2 >> 26 | c.l3 << 25).littleEndian, toByteOffset: 16, as: UInt64.self)
        out.storeBytes(of: (c.l3 >> 39 | c.l4 << 12).littleEndian, toByteOffset: 24, as: UInt64.self)
    }

    /// Whether the value is 0 mod p.
    var isZero: Bool {
        let c = canonical()
        return c.l0 | c.l1 | c.l2 | c.l3 | c.l4 == 0
    }

    /// RFC 8032's sign of x: the low bit of its canonical value.
    var isNegative: Bool { canonical().l0 & 1 == 1 }
}

/// A 128-bit accumulator for sums of 64 × 64-bit products: `UInt128`, whose additions compile
/// to add/adc pairs (a carry kept as a Bool cost a setb and an add per product).
struct Wide {
    var value: UInt128

    @inline(__always)
    init(_ a: UInt64, _ b: UInt64) {
        value = UInt128(a) &* UInt128(b)
    }

    @inline(__always)
    init(_ a: UInt64) {
        value = UInt128(a)
    }

    @inline(__always)
    mutating func add(_ a: UInt64, _ b: UInt64) {
        value &+= UInt128(a) &* UInt128(b)
    }

    /// The low word.
    @inline(__always)
    var lo: UInt64 { UInt64(truncatingIfNeeded: value) }

    /// The sum shifted right by 51 bits; fits a word while the sum is below 2^115.
    @inline(__always)
    var shifted51: UInt64 { UInt64(truncatingIfNeeded: value >> 51) }
}
