import BadgeCore
import Crypto
import Testing

@Suite struct Ed25519Tests {
    // RFC 9421 B.1.4 test-key-ed25519
    let seed = Hex.decode("9f8362f87a484a954e6e740c5b4c0e84229139a20aa8ab56ff66586f6a7d29c5")!
    let publicRaw = Hex.decode("26b40b8f93fff3d897112f7ebc582b232dbd72517d082fe83cfb30ddce43d1bb")!

    @Test func derivesPublicKeyFromSeed() throws {
        let key = try Ed25519PrivateKey(seed: seed)
        #expect(key.publicKey.raw == publicRaw)
        #expect(Base64URL.encodeStandard(key.publicKey.spki) == "MCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=")
    }

    // RFC 8032 §7.1 TEST 1 (empty message)
    @Test func rfc8032Vector() throws {
        let key = try Ed25519PrivateKey(seed: Hex.decode("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")!)
        #expect(Hex.encode(key.publicKey.raw) == "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        let sig = key.signature(for: [UInt8]())
        #expect(Hex.encode(sig) == "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
        #expect(key.publicKey.isValidSignature(sig, for: [UInt8]()))
    }

    @Test func rejectsTamperedMessageAndSignature() {
        let key = Ed25519PrivateKey()
        let msg = Array("hello".utf8)
        var sig = key.signature(for: msg)
        #expect(key.publicKey.isValidSignature(sig, for: msg))
        #expect(!key.publicKey.isValidSignature(sig, for: Array("hellp".utf8)))
        sig[0] ^= 1
        #expect(!key.publicKey.isValidSignature(sig, for: msg))
        #expect(!key.publicKey.isValidSignature(Array(sig.prefix(63)), for: msg))
        #expect(!Ed25519PrivateKey().publicKey.isValidSignature(key.signature(for: msg), for: msg))
    }

    @Test func spkiRoundTrip() {
        let key = Ed25519PrivateKey()
        #expect(Ed25519PublicKey(spki: key.publicKey.spki) == key.publicKey)
        #expect(key.publicKey.purchaseKeyText.count == 60)
        #expect(Ed25519PublicKey(spki: Array(key.publicKey.spki.dropFirst())) == nil)
        var wrongOID = key.publicKey.spki
        wrongOID[8] = 0x71
        #expect(Ed25519PublicKey(spki: wrongOID) == nil)
    }
}
