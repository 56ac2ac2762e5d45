import BBS
import Testing

/// Every refusal of compressed-point decoding, for G1 and G2.
@Suite struct PointDecodingTests {
    static let p = hex("1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab")
    let g1 = G1Point.generator.multiplied(by: Fr(0xabcdef)).compressed
    let g2 = G2Point.generator.multiplied(by: Fr(0xabcdef)).compressed

    /// The smallest x ≥ start (as an integer) for which x^3 + b is (or is not) a square.
    static func g1X(square: Bool, from start: UInt64 = 1) -> [UInt8] {
        var k = start
        while (Fp(k).squared() * Fp(k) + Fp(4)).isSquare != square { k += 1 }
        var bytes = Fp(k).bigEndianBytes
        bytes[0] |= 0x80
        return bytes
    }

    static func g2X(square: Bool) -> [UInt8] {
        var k: UInt64 = 1
        let b = Fp2(Fp(4), Fp(4))
        while true {
            let x = Fp2(Fp(k), Fp(1))
            if ((x.squared() * x + b).squareRoot() != nil) == square {
                var bytes = Fp(1).bigEndianBytes + Fp(k).bigEndianBytes  // c1 ‖ c0
                bytes[0] |= 0x80
                return bytes
            }
            k += 1
        }
    }

    @Test func wrongLength() {
        #expect(throws: PointDecodingError.wrongLength(expected: 48, actual: 47)) { try G1Point(compressed: g1.dropLast()) }
        #expect(throws: PointDecodingError.wrongLength(expected: 96, actual: 97)) { try G2Point(compressed: g2 + [0]) }
    }

    @Test func compressionBitUnset() {
        var a = g1, b = g2
        a[0] &= 0x7f
        b[0] &= 0x7f
        #expect(throws: PointDecodingError.notCompressed) { try G1Point(compressed: a) }
        #expect(throws: PointDecodingError.notCompressed) { try G2Point(compressed: b) }
        // An uncompressed-style infinity (0x40 …) is refused too.
        #expect(throws: PointDecodingError.notCompressed) { try G1Point(compressed: [0x40] + [UInt8](repeating: 0, count: 47)) }
        #expect(throws: PointDecodingError.notCompressed) { try G2Point(compressed: [0x40] + [UInt8](repeating: 0, count: 95)) }
    }

    @Test func infinityWithNonZeroBytes() {
        for position in [1, 20, 47] {
            var a = [0xc0] + [UInt8](repeating: 0, count: 47)
            a[position] = 1
            #expect(throws: PointDecodingError.invalidInfinity) { try G1Point(compressed: a) }
        }
        for position in [1, 48, 95] {
            var b = [0xc0] + [UInt8](repeating: 0, count: 95)
            b[position] = 1
            #expect(throws: PointDecodingError.invalidInfinity) { try G2Point(compressed: b) }
        }
        // Low bits of the flag byte belong to x and must be zero too.
        #expect(throws: PointDecodingError.invalidInfinity) { try G1Point(compressed: [0xc1] + [UInt8](repeating: 0, count: 47)) }
        // The infinity flag on a real point's bytes.
        var c = g1
        c[0] |= 0x40
        #expect(throws: PointDecodingError.invalidInfinity) { try G1Point(compressed: c) }
    }

    @Test func sortBitOnInfinity() {
        #expect(throws: PointDecodingError.invalidInfinity) { try G1Point(compressed: [0xe0] + [UInt8](repeating: 0, count: 47)) }
        #expect(throws: PointDecodingError.invalidInfinity) { try G2Point(compressed: [0xe0] + [UInt8](repeating: 0, count: 95)) }
    }

    @Test func nonCanonicalCoordinates() {
        var a = Self.p
        a[0] |= 0x80
        #expect(throws: PointDecodingError.nonCanonicalCoordinate) { try G1Point(compressed: a) }
        var big = [UInt8](repeating: 0xff, count: 48)  // 2^381 - 1 after the flags
        big[0] = 0x9f
        #expect(throws: PointDecodingError.nonCanonicalCoordinate) { try G1Point(compressed: big) }
        // G2: p in c1 (first half), then p in c0 (second half).
        var c1 = Self.p + [UInt8](repeating: 0, count: 48)
        c1[0] |= 0x80
        #expect(throws: PointDecodingError.nonCanonicalCoordinate) { try G2Point(compressed: c1) }
        var c0 = [UInt8](repeating: 0, count: 48) + Self.p
        c0[0] |= 0x80
        #expect(throws: PointDecodingError.nonCanonicalCoordinate) { try G2Point(compressed: c0) }
    }

    @Test func notOnCurve() {
        #expect(throws: PointDecodingError.notOnCurve) { try G1Point(compressed: Self.g1X(square: false)) }
        #expect(throws: PointDecodingError.notOnCurve) { try G2Point(compressed: Self.g2X(square: false)) }
    }

    @Test func notInSubgroup() {
        // Points of E(Fp) and E'(Fp2) with small x lie outside the order-r subgroup (the cofactors are huge).
        #expect(throws: PointDecodingError.notInSubgroup) { try G1Point(compressed: Self.g1X(square: true)) }
        var sorted = Self.g1X(square: true)
        sorted[0] |= 0x20
        #expect(throws: PointDecodingError.notInSubgroup) { try G1Point(compressed: sorted) }
        #expect(throws: PointDecodingError.notInSubgroup) { try G2Point(compressed: Self.g2X(square: true)) }
    }

    @Test func sortBitSelectsTheRoot() throws {
        var flipped = g1
        flipped[0] ^= 0x20
        #expect(try G1Point(compressed: flipped) == -(try G1Point(compressed: g1)))
        var flipped2 = g2
        flipped2[0] ^= 0x20
        #expect(try G2Point(compressed: flipped2) == -(try G2Point(compressed: g2)))
    }
}
