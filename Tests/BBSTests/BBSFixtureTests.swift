import BBS
import Foundation
import Testing

/// The draft's BLS12-381-SHA-256 fixtures (reference/bbs/bls12-381-sha-256).
@Suite struct BBSFixtureTests {
    static let dir = "bbs/bls12-381-sha-256/"

    @Test func generators() throws {
        let json = try referenceJSON(Self.dir + "generators.json")
        #expect(hexString(BBS.p1.compressed) == json["P1"] as! String)
        let expected = [json["Q1"] as! String] + (json["MsgGenerators"] as! [String])
        #expect(expected.count == 11)
        let gens = BBS.generators(count: expected.count)
        #expect(gens.map { hexString($0.compressed) } == expected)
        // A shorter request is a prefix of the cached sequence.
        #expect(BBS.generators(count: 5).map { hexString($0.compressed) } == Array(expected.prefix(5)))
    }

    @Test func hashToScalar() throws {
        let json = try referenceJSON(Self.dir + "h2s.json")
        let s = BBS.hashToScalar(hex(json["message"] as! String), dst: hex(json["dst"] as! String))
        #expect(hexString(s.bigEndianBytes) == json["scalar"] as! String)
    }

    @Test func mapMessageToScalarAsHash() throws {
        let json = try referenceJSON(Self.dir + "MapMessageToScalarAsHash.json")
        #expect(hex(json["dst"] as! String) == BBS.mapMessageDST)
        let cases = json["cases"] as! [[String: String]]
        #expect(cases.count == 10)
        let scalars = BBS.messagesToScalars(cases.map { hex($0["message"]!) })
        #expect(scalars.map { hexString($0.bigEndianBytes) } == cases.map { $0["scalar"]! })
    }

    @Test func keyPair() throws {
        let json = try referenceJSON(Self.dir + "keypair.json")
        let sk = try BBSSecretKey.keyGen(keyMaterial: hex(json["keyMaterial"] as! String),
                                         keyInfo: hex(json["keyInfo"] as! String),
                                         keyDST: hex(json["keyDst"] as! String))
        let pair = json["keyPair"] as! [String: String]
        #expect(hexString(sk.bytes) == pair["secretKey"]!)
        #expect(hexString(sk.publicKey.bytes) == pair["publicKey"]!)
        #expect(try BBSPublicKey(bytes: hex(pair["publicKey"]!)) == sk.publicKey)
    }

    @Test func mockedRandomScalars() throws {
        let json = try referenceJSON(Self.dir + "mockedRng.json")
        let scalars = try BBS.seededRandomScalars(seed: hex(json["seed"] as! String), dst: hex(json["dst"] as! String),
                                                  count: json["count"] as! Int)
        #expect(scalars.map { hexString($0.bigEndianBytes) } == json["mockedScalars"] as! [String])
    }

    @Test(arguments: 1...10)
    func signature(number: Int) throws {
        let json = try referenceJSON(Self.dir + String(format: "signature/signature%03d.json", number))
        let pair = json["signerKeyPair"] as! [String: String]
        let header = hex(json["header"] as! String)
        let messages = (json["messages"] as! [String]).map(hex)
        let signature = hex(json["signature"] as! String)
        let valid = (json["result"] as! [String: Any])["valid"] as! Bool
        #expect(BBS.verify(publicKey: hex(pair["publicKey"]!), signature: signature, header: header, messages: messages) == valid)
        if valid {
            let sk = try BBSSecretKey(bytes: hex(pair["secretKey"]!))
            let pk = try BBSPublicKey(bytes: hex(pair["publicKey"]!))
            #expect(try BBS.sign(secretKey: sk, publicKey: pk, header: header, messages: messages) == signature)
            let trace = json["trace"] as! [String: String]
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
        let pkBytes = hex(json["signerPublicKey"] as! String)
        let header = hex(json["header"] as! String)
        let ph = hex(json["presentationHeader"] as! String)
        let messages = (json["messages"] as! [String]).map(hex)
        let indexes = json["disclosedIndexes"] as! [Int]
        let proof = hex(json["proof"] as! String)
        let valid = (json["result"] as! [String: Any])["valid"] as! Bool
        let pk = try BBSPublicKey(bytes: pkBytes)
        let disclosed = indexes.filter { $0 < messages.count }.map { messages[$0] }
        #expect(BBS.proofVerify(publicKey: pk, proof: proof, header: header, presentationHeader: ph,
                                disclosedMessages: disclosed, disclosedIndexes: indexes) == valid)
        if valid {
            let seed = hex(rng["seed"] as! String), dst = hex(rng["dst"] as! String)
            let generated = try BBS.proofGen(publicKey: pk, signature: hex(json["signature"] as! String), header: header,
                                             presentationHeader: ph, messages: messages, disclosedIndexes: indexes,
                                             randomScalars: { try BBS.seededRandomScalars(seed: seed, dst: dst, count: $0) })
            #expect(hexString(generated) == hexString(proof))
        }
    }
}
