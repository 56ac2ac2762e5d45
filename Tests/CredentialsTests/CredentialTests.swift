import BBS
import BadgeCore
import Credentials
import Dispatch
import Foundation
import JSON
import Locking
import Schema
import Testing

/// Deterministic keys for the tests (KeyGen is deterministic in its key material).
let testSecret = try! IssuerSecretKey(bytes: [UInt8](repeating: 0, count: 31) + [42])
let masterKey = [UInt8]((0..<32).map { UInt8($0 * 7 & 0xff) })
let expiry = Timestamp(CivilDate(year: 2026, month: 4, day: 14))

@Suite struct IssuerKeyTests {
    @Test func textForms() throws {
        let key = IssuerSecretKey.generate()
        #expect(key.text.count == 44 && key.text.hasSuffix("="))
        #expect(key.publicKey.text.count == 128)
        let again = try IssuerSecretKey(text: key.text)
        #expect(again.publicKey == key.publicKey)
        #expect(try IssuerPublicKey(text: key.publicKey.text) == key.publicKey)
        // The older sk ‖ pk form is accepted when both halves agree.
        let legacy = Base64URL.encode(Base64URL.decode(key.text)! + key.publicKey.bytes)
        #expect(try IssuerSecretKey(text: legacy).publicKey == key.publicKey)
    }

    @Test func refusesInvalidSecretKeys() {
        let r = Hex.decode("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001")!
        for bytes in [[UInt8](repeating: 0, count: 32), r, [UInt8](repeating: 0xff, count: 32), [1, 2, 3]] {
            #expect(throws: CredentialError.invalidSecretKey) { try IssuerSecretKey(bytes: bytes) }
        }
        #expect(throws: CredentialError.invalidSecretKey) { try IssuerSecretKey(text: "not base64!") }
        let other = IssuerSecretKey.generate()
        let mixed = Base64URL.encode(Base64URL.decode(testSecret.text)! + other.publicKey.bytes)
        #expect(throws: CredentialError.invalidSecretKey) { try IssuerSecretKey(text: mixed) }
    }

    @Test func refusesInvalidPublicKeys() {
        var bytes = testSecret.publicKey.bytes
        bytes[0] &= 0x7f  // compression flag cleared
        #expect(throws: (any Error).self) { try IssuerPublicKey(bytes: bytes) }
        #expect(throws: (any Error).self) { try IssuerPublicKey(bytes: [0xc0] + [UInt8](repeating: 0, count: 95)) }  // identity
        #expect(throws: (any Error).self) { try IssuerPublicKey(text: String(testSecret.publicKey.text.dropLast(4))) }
    }

    /// The eight keys released clients ship (docs/protocol.md, Credential) are valid public keys.
    @Test func upstreamPublicKeysDecode() throws {
        let keys = [
            "mW_5Zp1wHnXDF56wOZwFcRjGrf0GLLsfyymIQDqYoWfjfvS7oQWSfi7hH65N8JhuE9x8wbKXHidnQLO4GnOSMP_bRKUMH1qIzv5SQKFHNM8G4PaWcTcri8iZLc-3xhSI",
            "odGCB7uVDXTURsHgSvSciByV4Q3-3ZvEB8myDsDJqm-PwOYc5-At36uc7n_pyUDxEQEHr9i4RJgFih2FSArPW-EQBXNPNf4wTtA0znn74qLEGc4fh9pVYPEIm_ZGbnsJ",
            "txkT2003WMjc43KvYvPKEcR970NLmw5UZY51eUqgk91sgp53idt1HTlKYvnrEttJDFMlctYf1-bpri0e9DhBQ-xk1J4WoLN2uif_1OcA1pGCobpk9lwtsq1Idek4biy0",
            "q_YzegihaLYrEm9z3cAghsfDGNZfXuEpQGMJERJQS4M0Szl4gvSC_fV_muKc3NIMA_8iYuBN8qyvb5U55RctCRn3kleFQ4sqf-WBgoydX6UVo7BsYcUbXWWEFZXlOGIH",
            "oqymHASH_okefShrnz4HnTooUNlE1WoDRnSrgd0bTCpOacgJWBsMpwZpdmYlX-vQAKAC_zmI4VdKoOznnhW-sdUXZw6bthCi5JYjGxCR1Co27i1tix5UXCTbR5Jp901-",
            "kDqaB6zKSRp_97QPFj5JPDlo0vzfSTLSp9goFx1qajv4q4H6dR6BbkmWZ4xx_9Q2AxmcpqcV0ethz1OH-Jk_Sz2J1mIz1PUVM9LkdLhi_PNtqhezzO5dbVs-HJ1fNqe6",
            "rl36D5mg2N3NmmEybxE_RBeU9YZ_zeXNPfp7ZMLtUEuf2Mo4OQM_Up1v5rX_IqICD-AIJcuyptEBsELx_PJQzpmiNuG5I4cWO6HkRKtc6fVFvgZMrDJjaascPd1CIyxX",
            "joM3Bnt7JPt5JiwQwERHGjro2iVZ0mPD_clUh4hzkhxvbjuFrWuTmfSNA8PWBqGKEGNl13aRi1pMf6yY14E27c5C71JxWm7T-rZaBrGPEUWifhD-qidWuf3PU7KJCCWd",
        ]
        for k in keys { #expect(try IssuerPublicKey(text: k).text == k) }
    }
}

@Suite struct BadgeCredentialTests {
    let signer = try! BadgeCredentialSigner(keyIndex: 3, secretKey: testSecret)

    @Test func signsTheFourBadgeMessages() throws {
        let credential = try signer.sign(masterKey: masterKey, expiry: expiry, badgeType: .supporter)
        #expect(credential.keyIndex == 3 && credential.signature.count == 80 && credential.extra == "")
        #expect(credential.messages == [masterKey, Array("2026-04-14T00:00:00Z".utf8), Array("supporter".utf8), []])
        #expect(credential.isValid(under: testSecret.publicKey))
        // The same as BBS over the documented header and messages.
        #expect(BBS.verify(publicKey: testSecret.publicKey.bytes, signature: credential.signature,
                           header: Array("SimpleX badges v1".utf8), messages: credential.messages))
    }

    @Test func anyChangeInvalidates() throws {
        let good = try signer.sign(masterKey: masterKey, expiry: expiry, badgeType: .legend)
        var c = good
        c.masterKey[0] ^= 1
        #expect(!c.isValid(under: testSecret.publicKey))
        c = good
        c.expiry = expiry.adding(seconds: 1)
        #expect(!c.isValid(under: testSecret.publicKey))
        c = good
        c.badgeType = .supporter
        #expect(!c.isValid(under: testSecret.publicKey))
        c = good
        c.extra = "x"
        #expect(!c.isValid(under: testSecret.publicKey))
        c = good
        c.signature[79] ^= 1
        #expect(!c.isValid(under: testSecret.publicKey))
        c = good
        c.signature = [1, 2, 3]
        #expect(!c.isValid(under: testSecret.publicKey))
        #expect(!good.isValid(under: IssuerSecretKey.generate().publicKey))
    }

    @Test func refusesBadInputs() {
        #expect(throws: CredentialError.invalidMasterKey(byteCount: 31)) {
            try signer.sign(masterKey: Array(masterKey.dropLast()), expiry: expiry, badgeType: .supporter)
        }
        #expect(throws: CredentialError.expiryNotWholeSecond("2026-04-14T00:00:00.500Z")) {
            try signer.sign(masterKey: masterKey, expiry: Timestamp(seconds: expiry.seconds, nanoseconds: 500_000_000), badgeType: .supporter)
        }
        #expect(throws: CredentialError.invalidKeyIndex(9)) { try BadgeCredentialSigner(keyIndex: 9, secretKey: testSecret) }
        #expect(throws: CredentialError.invalidKeyIndex(0)) { try BadgeCredentialSigner(keyIndex: 0, secretKey: testSecret) }
    }

    @Test func expiryTextIsIso8601Show() {
        #expect(BadgeCredential.expiryText(expiry) == "2026-04-14T00:00:00Z")
        #expect(BadgeCredential.expiryText(Timestamp(seconds: expiry.seconds, nanoseconds: 250_000_000)) == "2026-04-14T00:00:00.25Z")
    }

    /// The credential as `issuer sign` prints it and clients parse it: Schema's wire form,
    /// members in upstream's order, verifying after a round trip.
    @Test func wireRoundTrip() throws {
        let credential = try signer.sign(masterKey: masterKey, expiry: expiry, badgeType: "future-type")
        let text = credential.json.text()
        #expect(text.hasPrefix(#"{"badgeKeyIdx":3,"masterKey":""#))
        #expect(text.hasSuffix(#""badgeInfo":{"badgeType":"future-type","badgeExpiry":"2026-04-14T00:00:00Z","badgeExtra":""}}"#))
        let parsed = try BadgeCredential(json: try JSONValue.parse(text))
        #expect(parsed == credential)
        #expect(parsed.isValid(under: testSecret.publicKey))
    }

    @Test func wireEscapesTextFields() throws {
        var credential = try signer.sign(masterKey: masterKey, expiry: expiry, badgeType: #"quote" back\slash é"#)
        credential.extra = "line\nbreak"
        #expect(try BadgeCredential(json: try JSONValue.parse(credential.json.text())) == credential)
    }

    @Test func signsConcurrently() throws {
        let results = LockedValueBox([Bool](repeating: false, count: 16))
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            let key = [UInt8](repeating: UInt8(i), count: 32)
            let c = try? signer.sign(masterKey: key, expiry: expiry, badgeType: .investor)
            let valid = c.map { $0.isValid(under: testSecret.publicKey) && $0.masterKey == key } ?? false
            results.withLock { $0[i] = valid }
        }
        #expect(results.withLock { $0 }.allSatisfy { $0 })
    }
}

@Suite struct IssuerKeyringTests {
    @Test func refusesSecretNotMatchingConfiguredPublicKey() {
        let other = IssuerSecretKey.generate()
        #expect(throws: CredentialError.publicKeyMismatch(index: 1, derived: testSecret.publicKey.text, configured: other.publicKey.text)) {
            try IssuerKeyring(active: 1, keys: [1: (testSecret, other.publicKey)])
        }
    }

    @Test func requiresAnActiveSigningKeyWithinRange() {
        #expect(throws: CredentialError.noActiveSigningKey(index: 2)) {
            try IssuerKeyring(active: 2, keys: [1: (testSecret, nil), 2: (nil, testSecret.publicKey)])
        }
        #expect(throws: CredentialError.invalidKeyIndex(9)) { try IssuerKeyring(active: 9, keys: [9: (testSecret, nil)]) }
    }

    @Test func signsWithActiveKeyAndVerifiesByIndex() throws {
        let old = IssuerSecretKey.generate()
        let keyring = try IssuerKeyring(active: 2, keys: [1: (nil, old.publicKey), 2: (testSecret, testSecret.publicKey)])
        #expect(keyring.publicKeysByIndex == [1: old.publicKey, 2: testSecret.publicKey])
        let credential = try keyring.sign(masterKey: masterKey, expiry: expiry, badgeType: .supporter)
        #expect(credential.keyIndex == 2)
        #expect(keyring.verify(credential))
        let oldCredential = try BadgeCredentialSigner(keyIndex: 1, secretKey: old).sign(masterKey: masterKey, expiry: expiry, badgeType: .supporter)
        #expect(keyring.verify(oldCredential))
        var wrongIndex = credential
        wrongIndex.keyIndex = 1
        #expect(!keyring.verify(wrongIndex))
        wrongIndex.keyIndex = 5
        #expect(!keyring.verify(wrongIndex))
    }

    /// What a reload refuses: another public key under an index in use. Added, removed,
    /// activated or made public-only, an index is no change of key.
    @Test func changedIndexesAreThoseWithAnotherPublicKey() throws {
        let old = IssuerSecretKey.generate(), other = IssuerSecretKey.generate()
        let running = try IssuerKeyring(active: 1, keys: [1: (testSecret, nil), 2: (old, nil), 3: (nil, other.publicKey)])
        let rotated = try IssuerKeyring(active: 2, keys: [1: (nil, testSecret.publicKey), 2: (old, nil), 4: (other, nil)])
        #expect(running.changedIndexes(in: rotated).isEmpty)
        let replaced = try IssuerKeyring(active: 2, keys: [1: (other, nil), 2: (old, nil), 3: (testSecret, nil)])
        #expect(running.changedIndexes(in: replaced) == [1, 3])
    }

    @Test func keyFileRoundTrip() throws {
        let old = IssuerSecretKey.generate()
        let keyring = try IssuerKeyring(active: 1, keys: [1: (testSecret, nil), 4: (nil, old.publicKey)])
        let loaded = try IssuerKeyring(json: keyring.fileBytes)
        #expect(loaded.activeIndex == 1)
        #expect(loaded.publicKeysByIndex == keyring.publicKeysByIndex)
        #expect(loaded.signer.secretKey.text == testSecret.text)
        #expect(keyring.fileBytes.last == 0x0A)
    }

    @Test func keyFileRefusals() {
        let mismatch = #"{"active": 1, "keys": {"1": {"secretKey": "\#(testSecret.text)", "publicKey": "\#(IssuerSecretKey.generate().publicKey.text)"}}}"#
        #expect {
            try IssuerKeyring(json: Array(mismatch.utf8))
        } throws: { error in
            if case CredentialError.publicKeyMismatch(index: 1, _, _) = error { return true } else { return false }
        }
        #expect(throws: CredentialError.noActiveSigningKey(index: 1)) { try IssuerKeyring(json: Array(#"{"active": 1, "keys": {}}"#.utf8)) }
        #expect(throws: CredentialError.malformedKeyFile(#"/keys/one: key index "one" is not an integer"#)) {
            try IssuerKeyring(json: Array(#"{"active": 1, "keys": {"one": {}}}"#.utf8))
        }
        #expect(throws: CredentialError.malformedKeyFile("/active: expected an integer, found string")) {
            try IssuerKeyring(json: Array(#"{"active": "1", "keys": {}}"#.utf8))
        }
        #expect(throws: CredentialError.malformedKeyFile("/keys/1/secretKey: expected a string, found number")) {
            try IssuerKeyring(json: Array(#"{"active": 1, "keys": {"1": {"secretKey": 7}}}"#.utf8))
        }
        #expect(throws: CredentialError.malformedKeyFile("invalid JSON at byte 1: unexpected character 'a'")) {
            try IssuerKeyring(json: Array("{active: 1}".utf8))
        }
        let ok = #"{"active": 1, "keys": {"1": {"secretKey": "\#(testSecret.text)"}}}"#
        #expect(throws: Never.self) { try IssuerKeyring(json: Array(ok.utf8)) }
    }
}
