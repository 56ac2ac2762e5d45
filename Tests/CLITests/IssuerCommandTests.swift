import BadgeCore
@testable import CLI
import Credentials
import JSON
import Testing

@Suite struct IssuerCommandTests {
    let secret = try! IssuerSecretKey(bytes: [UInt8](repeating: 0, count: 31) + [42])

    @Test func keygenSignVerify() throws {
        let keys = IssuerCommand.keygen()
        let secretText = try #require(keys["secretKey"]?.stringValue)
        let publicKey = try #require(keys["publicKey"]?.stringValue)
        #expect(keys.text(.spaced) == #"{"secretKey": "\#(secretText)", "publicKey": "\#(publicKey)"}"#)
        let master = Base64URL.encode([UInt8](repeating: 9, count: 32))
        let credential = try IssuerCommand.sign(secretKey: secretText, index: 1, masterKey: master,
                                                expiry: "2026-04-14T00:00:00Z", type: "supporter")
        let text = Array(credential.json.text().utf8)
        #expect(try IssuerCommand.verify(publicKey: publicKey, credentialJSON: text))
        let stranger = try #require(IssuerCommand.keygen()["publicKey"]?.stringValue)
        #expect(try !IssuerCommand.verify(publicKey: stranger, credentialJSON: text))
    }

    @Test func signAndVerifyRefuseMalformedInput() {
        #expect(throws: CredentialError.malformedCredential("master key must be base64url")) {
            try IssuerCommand.sign(secretKey: secret.text, index: 1, masterKey: "*", expiry: "2026-04-14T00:00:00Z", type: "supporter")
        }
        #expect(throws: CredentialError.malformedCredential("/badgeKeyIdx: expected an integer, found string")) {
            try IssuerCommand.verify(publicKey: secret.publicKey.text, credentialJSON: Array(#"{"badgeKeyIdx": "1"}"#.utf8))
        }
    }

    @Test func activateNeedsAKeyThatCanSign() throws {
        let old = IssuerSecretKey.generate()
        let keyring = try IssuerKeyring(active: 2, keys: [1: (old, nil), 2: (secret, nil), 3: (nil, IssuerSecretKey.generate().publicKey)])
        let activated = try IssuerCommand.activate(index: 1, in: keyring, path: "k.json")
        #expect(activated.activeIndex == 1 && activated.publicKeysByIndex == keyring.publicKeysByIndex)
        #expect(throws: CommandFailure.self) { try IssuerCommand.activate(index: 4, in: keyring, path: "k.json") }
        do {
            _ = try IssuerCommand.activate(index: 3, in: keyring, path: "k.json")
            Issue.record("a public-only index was activated")
        } catch let failure as CommandFailure {
            #expect(failure.message == "issuer key file k.json: index 3 holds only a public key, which cannot sign")
        }
    }

    /// The line clients configure their issuer keys from, byte for byte as before the JSON module.
    @Test func showPrintsKeysByIndexOnOneLine() throws {
        let old = IssuerSecretKey.generate()
        let keyring = try IssuerKeyring(active: 2, keys: [1: (nil, old.publicKey), 2: (secret, nil)])
        #expect(IssuerCommand.show(keyring).text(.spaced)
                == "{\"active\": 2, \"keys\": {\"1\": \"\(old.publicKey.text)\", \"2\": \"\(secret.publicKey.text)\"}}")
    }
}
