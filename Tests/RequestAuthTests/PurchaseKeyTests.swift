import BadgeCore
import Crypto
import RequestAuth
import Testing

@Suite struct PurchaseKeyTests {
    let key = Ed25519PrivateKey().publicKey

    @Test func canonicalSpelling() {
        let text = key.purchaseKeyText
        #expect(text.count == 60 && text.hasPrefix("MCowBQYDK2VwAyEA") && text.hasSuffix("="))
        #expect(PurchaseKey.parseCanonical(text) == key)
        #expect(PurchaseKey.parseCanonical(String(text.dropLast())) == nil)
        // RFC 9421 B.1.4 key in the standard alphabet (it has "+" and "/"): not the envelope's spelling.
        #expect(PurchaseKey.parseCanonical("MCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=") == nil)
        #expect(PurchaseKey.parseCanonical("MCowBQYDK2VwAyEAJrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs=") != nil)
        #expect(PurchaseKey.parseCanonical(" " + text) == nil)
    }

    // The RPC layer compares the envelope's purchaseKey with the verified signer by decoded key.
    @Test func envelopeComparison() {
        let signer = VerifiedSigner(publicKey: key, keyID: key.purchaseKeyText, source: .trustedFront)
        #expect(signer.matches(purchaseKey: key.purchaseKeyText))
        #expect(signer.matches(purchaseKey: Base64URL.encode(key.spki, padded: false)))  // unpadded: same key
        #expect(!signer.matches(purchaseKey: Ed25519PrivateKey().publicKey.purchaseKeyText))
        #expect(!signer.matches(purchaseKey: ""))
        #expect(!signer.matches(purchaseKey: "not base64!"))
        #expect(!signer.matches(purchaseKey: Base64URL.encode(key.raw)))  // raw 32 bytes are not a purchase key
    }
}
