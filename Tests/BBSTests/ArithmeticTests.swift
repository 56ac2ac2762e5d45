import BBS
import Testing

@Suite struct FieldTests {
    @Test func fpInverseAndSquareRoot() {
        let a = Fp(123_456_789)
        #expect(a * a.inverse() == .one)
        #expect(Fp.zero.inverse() == .zero)
        let s = (a * a).squareRoot()
        #expect(s != nil && s! * s! == a * a)
        #expect((-a) + a == .zero)
        #expect(-Fp.zero == .zero)
    }

    @Test func fpEncodingRoundTripAndCanonicity() {
        let a = Fp(0xdead_beef) * Fp(0x1234_5678_9abc)
        #expect(Fp(bigEndian: a.bigEndianBytes) == a)
        let p = hex("1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab")
        #expect(Fp(bigEndian: p) == nil)
        var pMinus1 = p
        pMinus1[47] -= 1
        #expect(Fp(bigEndian: pMinus1) == -Fp.one)
    }

    @Test func fp2Arithmetic() {
        let a = Fp2(Fp(3), Fp(7))
        #expect(a * a.inverse() == .one)
        #expect(a.squared() == a * a)
        let s = a.squared().squareRoot()
        #expect(s != nil && s!.squared() == a.squared())
        let u = Fp2(.zero, .one)
        #expect(u.squared() == Fp2(-Fp.one, .zero))
    }

    @Test func fp6AndFp12Arithmetic() {
        let a = Fp6(Fp2(Fp(1), Fp(2)), Fp2(Fp(3), Fp(4)), Fp2(Fp(5), Fp(6)))
        let b = Fp6(Fp2(Fp(7), Fp(8)), Fp2(Fp(9), Fp(10)), Fp2(Fp(11), Fp(12)))
        #expect(a * a.inverse() == .one)
        #expect(a.squared() == a * a)
        let f = Fp12(a, b)
        #expect(f * f.inverse() == .one)
        #expect(f.squared() == f * f)
        // Frobenius is a ring homomorphism of order 12.
        #expect((f * f).frobenius() == f.frobenius() * f.frobenius())
        var g = f
        for _ in 0..<12 { g = g.frobenius() }
        #expect(g == f)
        // After the easy part of the final exponentiation, cyclotomic squaring agrees with squaring.
        var t = f.conjugate() * f.inverse()
        t = t.frobenius().frobenius() * t
        #expect(t.cyclotomicSquared() == t.squared())
    }

    @Test func frArithmeticAndEncoding() {
        let a = Fr(987_654_321)
        #expect(a * a.inverse() == .one)
        #expect(Fr(bigEndian: a.bigEndianBytes) == a)
        let r = hex("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001")
        #expect(Fr(bigEndian: r) == nil)
        // 2^384 - 1 reduced mod r, checked against Python.
        let all = Fr(reducing: [UInt8](repeating: 0xff, count: 48))
        #expect(hexString(all.bigEndianBytes) == "2dbeaf1fd4843acb7abbe5687369510a9277efb8ac0a600dcf2ab21bf81f712c")
    }
}
