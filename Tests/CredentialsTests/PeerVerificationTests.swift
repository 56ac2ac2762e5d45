import BadgeCore
import Credentials
import Foundation
import JSON
import Schema
import TestSupport
import Testing

/// Our credentials checked by an independent BBS verifier (Tests/Peers/bbs_peer.py on pyblst).
@Suite(.timeLimit(.minutes(5))) struct PeerVerificationTests {
    @Test func independentVerifierAcceptsOursAndRefusesEveryFlippedBit() throws {
        let secret = IssuerSecretKey.generate()
        let signer = try BadgeCredentialSigner(keyIndex: 1, secretKey: secret)
        let good = try signer.sign(masterKey: SecureRandomBytes.masterKey(), expiry: expiry, badgeType: .supporter)

        var badSignature = good
        badSignature.signature[60] ^= 0x10          // a bit of e
        var badSignatureA = good
        badSignatureA.signature[20] ^= 0x01         // a bit of A's x coordinate
        var badExpiry = good
        badExpiry.expiry = Timestamp(seconds: good.expiry.seconds ^ 1)
        var badType = good
        badType.badgeType = BadgeType(String(decoding: Array("supporter".utf8).enumerated().map { $0 == 0 ? $1 ^ 1 : $1 }, as: UTF8.self))
        var badMaster = good
        badMaster.masterKey[31] ^= 0x80

        let cases = [good, badSignature, badSignatureA, badExpiry, badType, badMaster]
        let request: JSONValue = ["publicKey": .string(secret.publicKey.text), "credentials": .array(cases.map(\.json))]
        let output = try PeerPython.run(script: "bbs_peer.py", input: Data(request.serialized()))
        let verdicts = try JSONValue.parse(Array(output)).arrayValue?.map(\.stringValue)
        #expect(verdicts == ["valid", "invalid", "invalid", "invalid", "invalid", "invalid"])
        #expect(badType.badgeType.rawValue == "rupporter")
    }
}

enum SecureRandomBytes {
    static func masterKey() -> [UInt8] { (0..<32).map { _ in UInt8.random(in: 0...255) } }
}
