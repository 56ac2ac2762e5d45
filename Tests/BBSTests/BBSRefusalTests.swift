import BBS
import Testing

/// Inputs BBS must refuse beyond the fixtures: malformed signatures, keys, indexes and proofs.
@Suite struct BBSRefusalTests {
    static let sk = try! BBSSecretKey(bytes: [UInt8](repeating: 0, count: 31) + [7])
    static let pk = sk.publicKey
    static let header = Array("hdr".utf8)
    static let messages: [[UInt8]] = [[1, 2, 3], Array("two".utf8), []]
    static let signature = try! BBS.sign(secretKey: sk, publicKey: pk, header: header, messages: messages)
    static let r = hex("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001")

    func verifies(_ sig: [UInt8]) -> Bool {
        BBS.verify(publicKey: Self.pk, signature: sig, header: Self.header, messages: Self.messages)
    }

    @Test func acceptsTheGenuineSignature() {
        #expect(verifies(Self.signature))
        #expect(BBS.verify(publicKey: Self.pk.bytes, signature: Self.signature, header: Self.header, messages: Self.messages))
    }

    @Test func refusesMalformedSignatures() {
        let a = Array(Self.signature[0..<48]), e = Array(Self.signature[48...])
        #expect(!verifies(Array(Self.signature.dropLast())))
        #expect(!verifies(Self.signature + [0]))
        #expect(!verifies(a + [UInt8](repeating: 0, count: 32)))               // e = 0
        #expect(!verifies(a + Self.r))                                          // e = r
        #expect(!verifies(a + [UInt8](repeating: 0xff, count: 32)))            // e > r
        #expect(!verifies([0xc0] + [UInt8](repeating: 0, count: 47) + e))     // A = identity
        var notCompressed = Self.signature
        notCompressed[0] &= 0x7f
        #expect(!verifies(notCompressed))
    }

    @Test func refusesInvalidPublicKeys() {
        #expect(throws: BBSError.invalidPublicKey(nil)) { try BBSPublicKey(bytes: [0xc0] + [UInt8](repeating: 0, count: 95)) }
        #expect(throws: BBSError.invalidPublicKey(.wrongLength(expected: 96, actual: 48))) { try BBSPublicKey(bytes: Self.signature.prefix(48).map { $0 }) }
        #expect(!BBS.verify(publicKey: [0xc0] + [UInt8](repeating: 0, count: 95), signature: Self.signature,
                            header: Self.header, messages: Self.messages))
        #expect(!BBS.verify(publicKey: BBSSecretKey.generate().publicKey, signature: Self.signature,
                            header: Self.header, messages: Self.messages))
    }

    @Test func refusesInvalidSecretKeysAndKeyMaterial() {
        #expect(throws: BBSError.invalidSecretKey) { try BBSSecretKey(bytes: [UInt8](repeating: 0, count: 32)) }
        #expect(throws: BBSError.invalidSecretKey) { try BBSSecretKey(bytes: Self.r) }
        #expect(throws: BBSError.invalidSecretKey) { try BBSSecretKey(bytes: [1]) }
        #expect(throws: BBSError.invalidKeyMaterial) { try BBSSecretKey.keyGen(keyMaterial: [UInt8](repeating: 1, count: 31)) }
    }

    @Test func signatureIsDeterministicAndEmptyMessagesWork() throws {
        #expect(try BBS.sign(secretKey: Self.sk, publicKey: Self.pk, header: Self.header, messages: Self.messages) == Self.signature)
        let none = try BBS.sign(secretKey: Self.sk, publicKey: Self.pk, header: [], messages: [])
        #expect(BBS.verify(publicKey: Self.pk, signature: none, header: [], messages: []))
    }

    @Test func proofRoundTripAndRefusals() throws {
        let ph = Array("presentation".utf8)
        let proof = try BBS.proofGen(publicKey: Self.pk, signature: Self.signature, header: Self.header,
                                     presentationHeader: ph, messages: Self.messages, disclosedIndexes: [1, 2])
        #expect(proof.count == BBS.proofByteCount(undisclosed: 1))
        func check(_ p: [UInt8], _ disclosed: [[UInt8]] = [Array("two".utf8), []], _ indexes: [Int] = [1, 2]) -> Bool {
            BBS.proofVerify(publicKey: Self.pk, proof: p, header: Self.header, presentationHeader: ph,
                            disclosedMessages: disclosed, disclosedIndexes: indexes)
        }
        #expect(check(proof))
        #expect(!check(proof, [Array("twO".utf8), []]))
        #expect(!check(proof, [Array("two".utf8), []], [2, 1]))
        #expect(!check(proof, [Array("two".utf8), []], [1, 1]))
        #expect(!check(proof, [Array("two".utf8), []], [1, 3]))
        #expect(!check(Array(proof.dropLast())))
        #expect(!check(Array(proof.dropLast(32))))
        var zeroScalar = proof
        for i in (proof.count - 32)..<proof.count { zeroScalar[i] = 0 }  // challenge = 0
        #expect(!check(zeroScalar))
        var flipped = proof
        flipped[200] ^= 1
        #expect(!check(flipped))
        // Fresh randomness gives a different, equally valid proof.
        let other = try BBS.proofGen(publicKey: Self.pk, signature: Self.signature, header: Self.header,
                                     presentationHeader: ph, messages: Self.messages, disclosedIndexes: [1, 2])
        #expect(other != proof && check(other))
        #expect(throws: BBSError.invalidDisclosedIndexes) {
            try BBS.proofGen(publicKey: Self.pk, signature: Self.signature, header: Self.header, presentationHeader: ph,
                             messages: Self.messages, disclosedIndexes: [2, 1])
        }
        #expect(throws: BBSError.invalidDisclosedIndexes) {
            try BBS.proofGen(publicKey: Self.pk, signature: Self.signature, header: Self.header, presentationHeader: ph,
                             messages: Self.messages, disclosedIndexes: [3])
        }
        #expect(throws: BBSError.invalidRandomScalars) {
            try BBS.proofGen(publicKey: Self.pk, signature: Self.signature, header: Self.header, presentationHeader: ph,
                             messages: Self.messages, disclosedIndexes: [0], randomScalars: { _ in [] })
        }
    }
}
