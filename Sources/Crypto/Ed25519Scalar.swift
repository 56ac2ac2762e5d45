/// Scalars modulo the group order L = 2^252 + c, c = 27742317777372353535851937790883648493,
/// as four little-endian 64-bit words. Variable time: they are public in a verification.
struct Scalar25519 {
    var w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64

    /// c = L − 2^252 (125 bits), as two words.
    static let c0: UInt64 = 0x5812631a5cf5d3ed, c1: UInt64 = 0x14def9dea2f79cd6
    static let order = Scalar25519(w0: c0, w1: c1, w2: 0, w3: 1 << 60)

    init(w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64) {
        self.w0 = w0; self.w1 = w1; self.w2 = w2; self.w3 = w3
    }

    /// The 32 little-endian bytes as they are, unreduced.
    init(bytes: UnsafeRawBufferPointer) {
        func word(_ i: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self)) }
        self.init(w0: word(0), w1: word(1), w2: word(2), w3: word(3))
    }

    /// Whether the value is below L: RFC 8032 §5.1.7 and OpenSSL reject an S that is not.
    var isCanonical: Bool {
        let l = Scalar25519.order
        if w3 != l.w3 { return w3 < l.w3 }
        if w2 != l.w2 { return w2 < l.w2 }
        if w1 != l.w1 { return w1 < l.w1 }
        return w0 < l.w0
    }

    /// A 64-byte little-endian integer (a SHA-512 digest) reduced mod L.
    ///
    /// Horner's rule over 32-bit words: r ← (r·2^32 + word) mod L. With r < L the step's value t
    /// is below 2^285; writing t = q·2^252 + low, t ≡ low − q·c, and since q·c < 2^158 < L one
    /// conditional addition of L brings that into [0, L).
    init(reducingWide bytes: UnsafeRawBufferPointer) {
        var r0: UInt64 = 0, r1: UInt64 = 0, r2: UInt64 = 0, r3: UInt64 = 0
        for i in stride(from: 15, through: 0, by: -1) {
            let word = UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)))
            // t = r·2^32 + word, five words.
            let t0 = r0 << 32 | word
            let t1 = r1 << 32 | r0 >> 32
            let t2 = r2 << 32 | r1 >> 32
            let t3 = r3 << 32 | r2 >> 32
            let t4 = r3 >> 32
            let q = t4 << 4 | t3 >> 60
            // q·c, three words (q < 2^33).
            let p0 = q.multipliedFullWidth(by: Scalar25519.c0)
            let p1 = q.multipliedFullWidth(by: Scalar25519.c1)
            let (m1, carry) = p0.high.addingReportingOverflow(p1.low)
            let m2 = p1.high &+ (carry ? 1 : 0)
            // low − q·c.
            var borrow = false
            (r0, borrow) = t0.subtractingReportingOverflow(p0.low)
            (r1, borrow) = Scalar25519.subtract(t1, m1, borrow)
            (r2, borrow) = Scalar25519.subtract(t2, m2, borrow)
            (r3, borrow) = Scalar25519.subtract(t3 & ((1 << 60) - 1), 0, borrow)
            if borrow {
                let l = Scalar25519.order
                var carry = false
                (r0, carry) = r0.addingReportingOverflow(l.w0)
                (r1, carry) = Scalar25519.add(r1, l.w1, carry)
                (r2, carry) = Scalar25519.add(r2, l.w2, carry)
                (r3, _) = Scalar25519.add(r3, l.w3, carry)
            }
        }
        self.init(w0: r0, w1: r1, w2: r2, w3: r3)
    }

    @inline(__always)
    private static func subtract(_ a: UInt64, _ b: UInt64, _ borrowIn: Bool) -> (UInt64, Bool) {
        let (d, b1) = a.subtractingReportingOverflow(b)
        let (e, b2) = d.subtractingReportingOverflow(borrowIn ? 1 : 0)
        return (e, b1 || b2)
    }

    @inline(__always)
    private static func add(_ a: UInt64, _ b: UInt64, _ carryIn: Bool) -> (UInt64, Bool) {
        let (s, c1) = a.addingReportingOverflow(b)
        let (t, c2) = s.addingReportingOverflow(carryIn ? 1 : 0)
        return (t, c1 || c2)
    }

    @inline(__always)
    private func word(_ i: Int) -> UInt64 {
        switch i {
        case 0: w0
        case 1: w1
        case 2: w2
        case 3: w3
        default: 0
        }
    }

    /// Writes the width-`width` non-adjacent form into `digits` (256 entries, least significant
    /// first): every nonzero digit is odd and below 2^(width−1) in magnitude, and any `width`
    /// consecutive digits hold at most one nonzero. Needs a value below 2^255 (ours are < L).
    func writeNonAdjacentForm(width: Int, into digits: UnsafeMutableBufferPointer<Int8>) {
        precondition(digits.count >= 256 && (2...8).contains(width))
        digits.update(repeating: 0)
        let windowMask = UInt64(1) << width - 1
        let size = UInt64(1) << width
        var position = 0
        var carry: UInt64 = 0
        while position < 256 {
            let index = position / 64, bit = position % 64
            let bits = bit < 64 - width
                ? word(index) >> bit
                : word(index) >> bit | word(index + 1) << (64 - bit)
            let window = carry + (bits & windowMask)
            // An even window gives digit 0 here. A pending carry stays pending: the window can
            // only be even with a carry if this bit is 1, and 1 + 1 carries into the next bit.
            if window & 1 == 0 {
                position += 1
                continue
            }
            if window < size / 2 {
                carry = 0
                digits[position] = Int8(window)
            } else {
                carry = 1
                digits[position] = Int8(Int64(window) - Int64(size))
            }
            position += width
        }
    }
}
