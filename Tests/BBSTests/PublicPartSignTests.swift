import BBS
import Testing

/// Sign with public messages (their part of B cached) returns the generic Sign's bytes.
@Suite struct PublicPartSignTests {
    @Test func matchesGenericSignForEveryPublicSubset() throws {
        let header = Array("SimpleX badges v1".utf8)
        let sk = BBSSecretKey.generate()
        let messages: [[UInt8]] = [BBS.randomScalars(count: 1)[0].bigEndianBytes, Array("2026-04-14T00:00:00Z".utf8),
                                   Array("supporter".utf8), []]
        let expected = try BBS.sign(secretKey: sk, publicKey: sk.publicKey, header: header, messages: messages)
        for mask in 0..<16 {
            let publicIndices = Set((0..<4).filter { mask & (1 << $0) != 0 })
            // Twice: the first computes the public part, the second takes it from the cache.
            for _ in 0..<2 {
                let signature = try BBS.sign(secretKey: sk, publicKey: sk.publicKey, header: header, messages: messages,
                                             publicIndices: publicIndices)
                #expect(signature == expected, "public indices \(publicIndices.sorted())")
            }
        }
    }

    /// The cache tells apart what it must: another key, header, or public or secret message.
    @Test func cachedPartsDoNotMixInputs() throws {
        let sk = BBSSecretKey.generate(), other = BBSSecretKey.generate()
        let base: [[UInt8]] = [Array(repeating: 7, count: 32), Array("2026-05-01T00:00:00Z".utf8), Array("supporter".utf8), []]
        let variants: [(BBSSecretKey, [UInt8], [[UInt8]])] = [
            (sk, Array("h".utf8), base),
            (other, Array("h".utf8), base),
            (sk, Array("h2".utf8), base),
            (sk, Array("h".utf8), [base[0], Array("2026-06-01T00:00:00Z".utf8), base[2], base[3]]),
            (sk, Array("h".utf8), [Array(repeating: 8, count: 32), base[1], base[2], base[3]]),
            (sk, Array("h".utf8), [base[0], base[1], [], Array("supporter".utf8)]),
        ]
        for (key, header, messages) in variants + variants {
            let cached = try BBS.sign(secretKey: key, publicKey: key.publicKey, header: header, messages: messages, publicIndices: [1, 2, 3])
            #expect(try cached == BBS.signVariableBase(secretKey: key, publicKey: key.publicKey, header: header, messages: messages))
        }
    }
}

/// A public part used often gets its own fixed-base table; the bytes stay those of the generic Sign.
@Suite struct PublicPartTableTests {
    @Test func signsTheSameBeforeAndAfterThePartGetsItsTable() throws {
        let sk = BBSSecretKey.generate()
        let header = Array("table test".utf8)
        func messages() -> [[UInt8]] {
            [BBS.randomScalars(count: 1)[0].bigEndianBytes, Array("2027-01-01T00:00:00Z".utf8), Array("supporter".utf8), Array("extra".utf8)]
        }
        #expect(!BBS.publicPartHasTable(publicKey: sk.publicKey, header: header, messages: messages(), publicIndices: [1, 2, 3]))
        for use in 0..<12 {
            let messages = messages()
            let signature = try BBS.sign(secretKey: sk, publicKey: sk.publicKey, header: header, messages: messages, publicIndices: [1, 2, 3])
            #expect(try signature == BBS.signVariableBase(secretKey: sk, publicKey: sk.publicKey, header: header, messages: messages),
                    "use \(use + 1)")
        }
        #expect(BBS.publicPartHasTable(publicKey: sk.publicKey, header: header, messages: messages(), publicIndices: [1, 2, 3]))
    }
}
