import BadgeCore
import Crypto
import RequestAuth
import Testing

@Suite struct TrustedFrontTests {
    static let token = "fr0nt-t0ken-0123456789abcdefghijklmnop"
    let signer = Ed25519PrivateKey()
    let front: RequestAuthenticator

    init() throws {
        front = RequestAuthenticator(trustedFront: try TrustedFront.enabled(token: Self.token))
    }

    private func forwarded(authorization: String?, signerKey: String?) -> SignedRequest {
        Fixture.request().setting("Authorization", authorization).setting("Badge-Signer-Key", signerKey)
    }

    @Test func rightToken() {
        let r = forwarded(authorization: "Bearer \(Self.token)", signerKey: signer.publicKey.purchaseKeyText)
        #expect(front.authenticate(r, now: Fixture.now)
                == .valid(VerifiedSigner(publicKey: signer.publicKey, keyID: signer.publicKey.purchaseKeyText, source: .trustedFront)))
        // RFC 9110: the auth-scheme is case-insensitive.
        let lower = forwarded(authorization: "bearer \(Self.token)", signerKey: signer.publicKey.purchaseKeyText)
        guard case .valid = front.authenticate(lower, now: Fixture.now) else { Issue.record("lower-case scheme"); return }
    }

    @Test(arguments: [
        "Bearer wrong-token-0123456789abcdefghijklmnop",
        "Bearer \(TrustedFrontTests.token)x",
        "Bearer \(String(TrustedFrontTests.token.dropLast()))",
        "Basic \(TrustedFrontTests.token)",
        "Bearer",
        "\(TrustedFrontTests.token)",
        "Bearer \(TrustedFrontTests.token) extra",
    ])
    func wrongToken(authorization: String) {
        let r = forwarded(authorization: authorization, signerKey: signer.publicKey.purchaseKeyText)
        #expect(front.authenticate(r, now: Fixture.now) == .invalid(.frontTokenMismatch))
        // A wrong token is refused with or without a signer key: the front is misconfigured.
        #expect(front.authenticate(forwarded(authorization: authorization, signerKey: nil), now: Fixture.now) == .invalid(.frontTokenMismatch))
    }

    @Test func twoAuthorizationLines() {
        var r = forwarded(authorization: "Bearer \(Self.token)", signerKey: signer.publicKey.purchaseKeyText)
        r.headers.append(("Authorization", "Bearer \(Self.token)"))
        #expect(front.authenticate(r, now: Fixture.now) == .invalid(.frontTokenMismatch))
    }

    @Test func missingToken() {
        let r = forwarded(authorization: nil, signerKey: signer.publicKey.purchaseKeyText)
        #expect(front.authenticate(r, now: Fixture.now) == .invalid(.frontTokenMissing))
    }

    @Test func tokenWithoutSignerKeyIsUnsigned() {
        #expect(front.authenticate(forwarded(authorization: "Bearer \(Self.token)", signerKey: nil), now: Fixture.now) == .unsigned)
        #expect(front.authenticate(Fixture.request(), now: Fixture.now) == .unsigned)
    }

    @Test func tokenWithoutSignerKeyStillVerifiesASignature() {
        let r = Fixture.signed(Fixture.request().setting("Authorization", "Bearer \(Self.token)"), key: signer)
        guard case .valid(let v) = front.authenticate(r, now: Fixture.now) else { Issue.record("expected valid"); return }
        #expect(v.source == .httpSignature(label: "sig1", created: Fixture.now.seconds))
    }

    @Test(arguments: [
        String(Ed25519PrivateKey().publicKey.purchaseKeyText.dropLast()),  // unpadded
        Base64URL.encode(Ed25519PrivateKey().publicKey.raw),  // raw key
        "MCowBQYDK2VwAyEA",
        "",
    ])
    func malformedSignerKey(value: String) {
        let r = forwarded(authorization: "Bearer \(Self.token)", signerKey: value)
        #expect(front.authenticate(r, now: Fixture.now) == .invalid(.malformedSignerKey))
    }

    @Test func twoSignerKeys() {
        var r = forwarded(authorization: "Bearer \(Self.token)", signerKey: signer.publicKey.purchaseKeyText)
        r.headers.append(("Badge-Signer-Key", Ed25519PrivateKey().publicKey.purchaseKeyText))
        #expect(front.authenticate(r, now: Fixture.now) == .invalid(.malformedSignerKey))
    }

    @Test func signerKeyAndSignatureTogether() {
        let r = Fixture.signed(forwarded(authorization: "Bearer \(Self.token)", signerKey: signer.publicKey.purchaseKeyText), key: signer)
        #expect(front.authenticate(r, now: Fixture.now) == .invalid(.ambiguousAuthentication))
    }

    @Test func signerKeyWhenFrontModeIsOff() {
        let off = RequestAuthenticator()
        #expect(!off.trustedFront.isEnabled)
        let r = forwarded(authorization: "Bearer \(Self.token)", signerKey: signer.publicKey.purchaseKeyText)
        #expect(off.authenticate(r, now: Fixture.now) == .invalid(.signerKeyWithoutTrustedFront))
        // Authorization alone means nothing when the mode is off.
        #expect(off.authenticate(forwarded(authorization: "Bearer x", signerKey: nil), now: Fixture.now) == .unsigned)
        guard case .valid = off.authenticate(Fixture.signed(key: signer), now: Fixture.now) else { Issue.record("signature path"); return }
    }

    @Test func tokenConfiguration() {
        #expect(throws: TrustedFront.ConfigurationError.tokenTooShort) { try TrustedFront.enabled(token: "") }
        #expect(throws: TrustedFront.ConfigurationError.tokenTooShort) { try TrustedFront.enabled(token: "short-token") }
        #expect(throws: TrustedFront.ConfigurationError.tokenNotB64Token) {
            try TrustedFront.enabled(token: "has spaces in it 0123456789abcdefghijk")
        }
        #expect(throws: TrustedFront.ConfigurationError.tokenNotB64Token) {
            try TrustedFront.enabled(token: "==0123456789abcdefghijklmnopqrstuvwxyz")
        }
        #expect((try? TrustedFront.enabled(token: Self.token))?.isEnabled == true)
    }
}
