import BBS
import Foundation
import TestSupport
import Testing

/// The draft's BLS12-381-SHA-256 fixtures (Tests/Fixtures/bbs/bls12-381-sha-256).
@Suite struct BBSFixtureTests {
    static let dir = "bbs/bls12-381-sha-256/"

    @Test func generators() throws {
        let json = try referenceJSON(Self.dir + "generators.json")
        #expect(try hexString(BBS.p1.compressed) == field(json, "P1", String.self))
        let expected = try [field(json, "Q1", String.self)] + field(json, "MsgGenerators", [String].self)
        #expect(expected.count == 11)
        let gens = BBS.generators(count: expected.count)
        #expect(gens.map { hexString($0.compressed) } == expected)
        // A shorter request is a prefix of the cached sequence.
        #expect(BBS.generators(count: 5).map { hexString($0.compressed) } == Array(expected.prefix(5)))
    }

    @Test func hashToScalar() throws {
        let json = try referenceJSON(Self.dir + "h2s.json")
        let s = try BBS.hashToScalar(hex(field(json, "message", String.self)), dst: hex(field(json, "dst", String.self)))
        #expect(try hexString(s.bigEndianBytes) == field(json, "scalar", String.self))
    }

    @Test func mapMessageToScalarAsHash() throws {
        let json = try referenceJSON(Self.dir + "MapMessageToScalarAsHash.json")
        #expect(try hex(field(json, "dst", String.self)) == BBS.mapMessageDST)
        let cases = try field(json, "cases", [[String: String]].self)
        #expect(cases.count == 10)
        let scalars = BBS.messagesToScalars(cases.map { hex($0["message"]!) })
        #expect(scalars.map { hexString($0.bigEndianBytes) } == cases.map { $0["scalar"]! })
    }

    @Test func keyPair() throws {
        let json = try referenceJSON(Self.dir + "keypair.json")
        let sk = try BBSSecretKey.keyGen(keyMaterial: hex(field(json, "keyMaterial", String.self)),
                                         keyInfo: hex(field(json, "keyInfo", String.self)),
                                         keyDST: hex(field(json, "keyDst", String.self)))
        let pair = try field(json, "keyPair", [String: String].self)
        #expect(hexString(sk.bytes) == pair["secretKey"]!)
        #expect(hexString(sk.publicKey.bytes) == pair["publicKey"]!)
        #expect(try BBSPublicKey(bytes: hex(pair["publicKey"]!)) == sk.publicKey)
    }

    @Test func mockedRandomScalars() throws {
        let json = try referenceJSON(Self.dir + "mockedRng.json")
        let scalars = try BBS.seededRandomScalars(seed: hex(field(json, "seed", String.self)), dst: hex(field(json, "dst", String.self)),
                                                  count: field(json, "count", Int.self))
        #expect(try scalars.map { hexString($0.bigEndianBytes) } == field(json, "mockedScalars", [String].self))
    }

    @Test(arguments: 1...10)
    func signature(number: Int) throws {
        let json = try referenceJSON(Self.dir + String(format: "signature/signature%03d.json", number))
        let pair = try field(json, "signerKeyPair", [String: String].self)
        let header = try hex(field(json, "header", String.self))
        let messages = try field(json, "messages", [String].self).map(hex)
        let signature = try hex(field(json, "signature", String.self))
        let valid = try field(field(json, "result", [String: Any].self), "valid", Bool.self)
        #expect(BBS.verify(publicKey: hex(pair["publicKey"]!), signature: signature, header: header, messages: messages) == valid)
        if valid {
            let sk = try BBSSecretKey(bytes: hex(pair["secretKey"]!))
            let pk = try BBSPublicKey(bytes: hex(pair["publicKey"]!))
            #expect(try BBS.sign(secretKey: sk, publicKey: pk, header: header, messages: messages) == signature)
            let trace = try field(json, "trace", [String: String].self)
            let domain = BBS.calculateDomain(publicKey: pk.bytes, header: header, messageCount: messages.count)
            #expect(hexString(domain.bigEndianBytes) == trace["domain"]!)
            #expect(hexString(BBS.computeB(publicKey: pk.bytes, header: header, messages: messages).compressed) == trace["B"]!)
        }
    }
}

/// The proof fixtures: valid ones reproduce byte for byte with the mocked random scalars.
@Suite struct BBSProofFixtureTests {
    static let dir = "bbs/bls12-381-sha-256/"

    @Test(arguments: 1...15)
    func proof(number: Int) throws {
        let json = try referenceJSON(Self.dir + String(format: "proof/proof%03d.json", number))
        let rng = try referenceJSON(Self.dir + "mockedRng.json")
        let pkBytes = try hex(field(json, "signerPublicKey", String.self))
        let header = try hex(field(json, "header", String.self))
        let ph = try hex(field(json, "presentationHeader", String.self))
        let messages = try field(json, "messages", [String].self).map(hex)
        let indexes = try field(json, "disclosedIndexes", [Int].self)
        let proof = try hex(field(json, "proof", String.self))
        let valid = try field(field(json, "result", [String: Any].self), "valid", Bool.self)
        let pk = try BBSPublicKey(bytes: pkBytes)
        let disclosed = indexes.filter { $0 < messages.count }.map { messages[$0] }
        #expect(BBS.proofVerify(publicKey: pk, proof: proof, header: header, presentationHeader: ph,
                                disclosedMessages: disclosed, disclosedIndexes: indexes) == valid)
        if valid {
            let seed = try hex(field(rng, "seed", String.self)), dst = try hex(field(rng, "dst", String.self))
            let generated = try BBS.proofGen(publicKey: pk, signature: hex(field(json, "signature", String.self)), header: header,
                                             presentationHeader: ph, messages: messages, disclosedIndexes: indexes,
                                             randomScalars: { try BBS.seededRandomScalars(seed: seed, dst: dst, count: $0) })
            #expect(hexString(generated) == hexString(proof))
        }
    }
}
