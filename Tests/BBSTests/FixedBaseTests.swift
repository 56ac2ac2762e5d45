import BBS
import Testing

/// The fixed-base tables and Sign over them give exactly what the variable-base path gives.
@Suite struct FixedBaseTests {
    static let rMinusOne = Fr(bigEndian: hex("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000"))!
    /// Scalars whose four-bit windows are all ones, alternate ones and zeros, or end in ones.
    static let edgeScalars: [Fr] = [
        .zero, .one, Fr(15), Fr(16), Fr(17), rMinusOne,
        Fr(bigEndian: hex("0fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"))!,
        Fr(bigEndian: hex("0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f"))!,
        Fr(bigEndian: hex("70f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0"))!,
        Fr(bigEndian: hex("000000000000000000000000000000000000000000000000ffffffffffffffff"))!,
    ]

    @Test func singleBaseMatchesVariableBase() {
        let bases = [G1Point.generator, BBS.p1, G1Point.generator.multiplied(by: Fr(987_654_321))]
        for base in bases {
            let table = FixedBaseTable(base)
            for k in Self.edgeScalars + BBS.randomScalars(count: 8) {
                let fixed = G1Point.multiScalarMultiplyFixedBase([table], [k])
                #expect(fixed == base.multiplied(by: k))
                #expect(fixed == base.multipliedVariableTime(by: k))
            }
        }
        #expect(G1Point.multiScalarMultiplyFixedBase([FixedBaseTable(.generator)], [.zero]).isIdentity)
    }

    @Test func severalBasesMatchTheConstantTimeMSM() {
        let bases = BBS.generators(count: 6)
        let tables = bases.map(FixedBaseTable.init)
        for scalars in [BBS.randomScalars(count: 6), Array(Self.edgeScalars.suffix(6)), [Fr](repeating: Self.rMinusOne, count: 6)] {
            #expect(G1Point.multiScalarMultiplyFixedBase(tables, scalars) == G1Point.multiScalarMultiply(bases, scalars))
        }
    }

    /// The mixed addition meets equal and opposite points (the accumulator equals ± the entry).
    @Test func completeMixedAdditionCases() {
        let g = G1Point.generator
        let same = [FixedBaseTable(g), FixedBaseTable(g)]
        #expect(G1Point.multiScalarMultiplyFixedBase(same, [.one, .one]) == g.doubled())
        #expect(G1Point.multiScalarMultiplyFixedBase(same, [Fr(5), Fr(5)]) == g.multiplied(by: Fr(10)))
        let opposite = [FixedBaseTable(g), FixedBaseTable(-g)]
        #expect(G1Point.multiScalarMultiplyFixedBase(opposite, [Fr(7), Fr(7)]).isIdentity)
        #expect(G1Point.multiScalarMultiplyFixedBase(opposite, [Self.rMinusOne, .one]) == -g.doubled())
    }

    /// Sign over the tables returns the variable-base path's bytes, for the badge's four messages
    /// and for counts around the tables' bound (past it Sign falls back to the variable-base path).
    @Test func signMatchesTheVariableBasePath() throws {
        let header = Array("SimpleX badges v1".utf8)
        for count in [0, 1, 4, 17, 18, 19, 25] {
            let sk = BBSSecretKey.generate()
            let messages = (0..<count).map { i in Array("message \(i)".utf8) + BBS.randomScalars(count: 1)[0].bigEndianBytes }
            let fast = try BBS.sign(secretKey: sk, publicKey: sk.publicKey, header: header, messages: messages)
            let reference = try BBS.signVariableBase(secretKey: sk, publicKey: sk.publicKey, header: header, messages: messages)
            #expect(fast == reference, "message count \(count)")
            #expect(BBS.verify(publicKey: sk.publicKey, signature: fast, header: header, messages: messages))
        }
    }
}
