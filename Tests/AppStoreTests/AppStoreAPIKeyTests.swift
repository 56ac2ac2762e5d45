import AppStore
import BadgeCore
import Foundation
import JSON
import TestSupport
import Testing

/// The App Store Server API bearer token, read back by PyJWT (an independent JWT library).
@Suite(.timeLimit(.minutes(5))) struct AppStoreAPIKeyTests {
    @Test func theTokenVerifiesWithThePublicKeyAndCarriesTheClaimsAppleRequires() throws {
        let directory = TemporaryDirectory()
        try PeerPython.run(script: "appstore_peer.py", arguments: ["apikey", directory.path])
        let p8 = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file("key.p8"))))
        let key = try AppStoreAPIKey(p8: p8, keyId: "2X9R4HXF34", issuerId: "57246542-96fe-1a63-e053-0824d011072a",
                                     bundleId: "chat.simplex.badges.test")
        // PyJWT checks exp against its own clock, so the token is made now.
        let now = Timestamp(seconds: Int64(Date().timeIntervalSince1970))
        let token = try key.token(at: now)
        let output = try PeerPython.run(script: "appstore_peer.py", arguments: ["token", directory.file("key.pub.pem")],
                                        input: Data(token.utf8))
        let read = try JSONValue.parse(Array(output))
        #expect(read["header"]?["alg"] == "ES256")
        #expect(read["header"]?["kid"] == "2X9R4HXF34")
        #expect(read["claims"]?["iss"] == "57246542-96fe-1a63-e053-0824d011072a")
        #expect(read["claims"]?["aud"] == "appstoreconnect-v1")
        #expect(read["claims"]?["bid"] == "chat.simplex.badges.test")
        #expect(read["claims"]?["iat"]?.numberValue?.exactInt == Int(now.seconds))
        #expect(read["claims"]?["exp"]?.numberValue?.exactInt == Int(now.seconds) + 300)

        // A token signed by another key is refused by the peer.
        let other = TemporaryDirectory()
        try PeerPython.run(script: "appstore_peer.py", arguments: ["apikey", other.path])
        #expect(throws: PeerPython.Failure.self) {
            try PeerPython.run(script: "appstore_peer.py", arguments: ["token", other.file("key.pub.pem")], input: Data(token.utf8))
        }
    }

    @Test func aKeyThatIsNotP256PEMIsRefused() throws {
        #expect(throws: AppStoreAPIKey.LoadError.self) {
            try AppStoreAPIKey(p8: Array("not a key".utf8), keyId: "K", issuerId: "I", bundleId: "B")
        }
    }
}
