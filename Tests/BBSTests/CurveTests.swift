import BBS
import Testing

@Suite struct CurveTests {
    let k = Fr(bigEndian: hex("2b3c1f5a9e8d7c6b5a4938271605f4e3d2c1b0a99887766554433221100ffeed"))!

    @Test func generatorsAreOnCurveAndInSubgroup() {
        #expect(G1Point.generator.isOnCurve)
        #expect(G1Point.generator.isInSubgroup)
        #expect(G2Point.generator.isOnCurve)
        #expect(G2Point.generator.isInSubgroup)
        #expect(hexString(G1Point.generator.compressed) == "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb")
        #expect(hexString(G2Point.generator.compressed) == "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8")
    }

    @Test func completeFormulasHandleEveryCase() {
        let g = G1Point.generator
        #expect(g + g == g.doubled())
        #expect(g + .identity == g)
        #expect(G1Point.identity + g == g)
        #expect((g + -g).isIdentity)
        #expect(G1Point.identity.doubled().isIdentity)
        #expect((g.doubled() + g).isOnCurve)
        let h = G2Point.generator
        #expect(h + h == h.doubled())
        #expect((h + -h).isIdentity)
        #expect(h + .identity == h)
    }

    /// Multiples checked against blst (pyblst 0.3.15).
    @Test func scalarMultiplesMatchBlst() {
        #expect(hexString(G1Point.generator.multiplied(by: Fr(3)).compressed) == "89ece308f9d1f0131765212deca99697b112d61f9be9a5f1f3780a51335b3ff981747a0b2ca2179b96d2c0c9024e5224")
        let g1k = "8eb228a7a2b46df0730193c9419b94522f0b7cb1583179d236cd3b43bcd81911eb38c0bc15a13522e1f2a7053eb883a1"
        #expect(hexString(G1Point.generator.multiplied(by: k).compressed) == g1k)
        #expect(hexString(G1Point.generator.multipliedVariableTime(by: k).compressed) == g1k)
        #expect(hexString(G2Point.generator.multiplied(by: Fr(5)).compressed) == "80fb837804dba8213329db46608b6c121d973363c1234a86dd183baff112709cf97096c5e9a1a770ee9d7dc641a894d60411a5de6730ffece671a9f21d65028cc0f1102378de124562cb1ff49db6f004fcd14d683024b0548eff3d1468df2688")
        let g2k = "9248a7fd54883efd54ae0e3415c4b8e274d8e7a26942de726f1f5bf621f47c068947cd018d6bd75857913f7ec3c2889917fe32fb4474ca0d9323c4a52d3e5a16fefb920ec2d64dc7db92e3522f98f5fb0ac5f193e4c197c01f17d01e3e506619"
        #expect(hexString(G2Point.generator.multiplied(by: k).compressed) == g2k)
        #expect(hexString(G2Point.generator.multipliedVariableTime(by: k).compressed) == g2k)
    }

    @Test func multiScalarMultiplicationMatchesSeparateProducts() {
        let g = G1Point.generator
        let points = [g, g.doubled(), g.multiplied(by: Fr(7))]
        let scalars = [k, Fr(12345), k * k]
        var expected = G1Point.identity
        for (p, s) in zip(points, scalars) { expected = expected + p.multiplied(by: s) }
        #expect(G1Point.multiScalarMultiplyVariableTime(points, scalars) == expected)
        #expect(G1Point.generator.multiplied(by: .zero).isIdentity)
    }

    @Test func compressionRoundTrips() throws {
        let p = G1Point.generator.multiplied(by: k)
        #expect(try G1Point(compressed: p.compressed) == p)
        #expect(try G1Point(compressed: (-p).compressed) == -p)
        let q = G2Point.generator.multiplied(by: k)
        #expect(try G2Point(compressed: q.compressed) == q)
        #expect(try G2Point(compressed: (-q).compressed) == -q)
        #expect(try G1Point(compressed: G1Point.identity.compressed).isIdentity)
        #expect(try G2Point(compressed: G2Point.identity.compressed).isIdentity)
    }
}

@Suite struct PairingTests {
    @Test func pairingIsBilinearAndNonDegenerate() {
        let p = G1Point.generator, q = G2Point.generator
        let a = Fr(0x1234_5678_9abc), b = Fr(0xfedc_ba98)
        let e = Pairing.pairing(p, q)
        #expect(e != .one)
        let lhs = Pairing.pairing(p.multiplied(by: a), q.multiplied(by: b))
        let rhs = Pairing.pairing(p.multiplied(by: a * b), q)
        #expect(lhs == rhs)
        #expect(Pairing.pairing(p.doubled(), q) == e * e)
        #expect(Pairing.isProductOne([(p.multiplied(by: a), q), (-p, q.multiplied(by: a))]))
        #expect(!Pairing.isProductOne([(p.multiplied(by: a), q), (-p, q.multiplied(by: b))]))
        #expect(Pairing.pairing(.identity, q) == .one)
    }
}

@Suite struct GLVTests {
    /// Scalars around the GLV split's boundaries (multiples of z = x^2, r - 1) and random ones,
    /// against the plain (non-GLV) w-NAF multiplication by the integer.
    @Test(arguments: [
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0000000000000000000000000000000000000000000000000000000000000001",
        "00000000000000000000000000000000ac45a4010001a4020000000100000000",  // z
        "00000000000000000000000000000000ac45a4010001a40200000000ffffffff",  // z - 1
        "000000000000000000000000000000015a8b4802000348040000000200000000",  // 2z
        "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000",  // r - 1
        "73eda753299d7d483339d80809a1d80553bda402fffe5bfefffffffeffffffff",
        "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a17",
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    ])
    func glvMatchesPlainMultiplication(scalarHex: String) throws {
        let k = try #require(Fr(bigEndian: hex(scalarHex)))
        let p = G1Point.generator.multiplied(by: Fr(77))
        let bytes = hex(scalarHex)
        let limbs = (0..<4).map { i in bytes[(24 - 8 * i)..<(32 - 8 * i)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        let expected = p.multipliedVariableTime(byInteger: limbs)
        #expect(p.multiplied(by: k) == expected)
        #expect(p.multipliedVariableTime(by: k) == expected)
    }
}
