import BadgeCore
import Crypto
import RequestAuth
import Testing

@Suite struct RequestSignerTests {
    let key = Ed25519PrivateKey()

    private func request(_ h: RequestSigner.Headers, query: String? = nil, contentType: String? = "application/json",
                         body: [UInt8] = Fixture.body) -> SignedRequest {
        var headers: [(name: String, value: String)] = [("Host", "badges.example.org")]
        if let contentType { headers.append(("Content-Type", contentType)) }
        return SignedRequest(method: "POST", path: "/rpc", query: query, authority: "badges.example.org", scheme: "https",
                             headers: headers + h.fields, body: body)
    }

    @Test func headersHaveTheDocumentedShape() throws {
        let h = try RequestSigner(key: key).sign(method: "POST", authority: "badges.example.org", path: "/rpc",
                                                 body: Fixture.body, created: Fixture.now)
        #expect(h.contentDigest == ContentDigest.fieldValue(for: Fixture.body))
        #expect(h.signatureInput == #"sig1=("@method" "@authority" "@path" "content-type" "content-digest");created=\#(Fixture.now.seconds);keyid="\#(key.publicKey.purchaseKeyText)";alg="ed25519""#)
        #expect(h.signature.hasPrefix("sig1=:") && h.signature.hasSuffix(":") && h.signature.count == 6 + 88 + 1)
        #expect(h.fields.map(\.name) == ["Content-Digest", "Signature-Input", "Signature"])
    }

    @Test func ourVerifierAcceptsOurSigner() throws {
        let h = try RequestSigner(key: key).sign(method: "POST", authority: "badges.example.org", path: "/rpc",
                                                 body: Fixture.body, created: Fixture.now)
        #expect(RequestSignatureVerifier().verify(request(h), now: Fixture.now)
                == .valid(VerifiedSigner(publicKey: key.publicKey, keyID: key.publicKey.purchaseKeyText,
                                         source: .httpSignature(label: "sig1", created: Fixture.now.seconds))))
    }

    @Test func queryIsCoveredWhenPresent() throws {
        let h = try RequestSigner(key: key, label: "cli").sign(method: "POST", authority: "badges.example.org", path: "/rpc",
                                                                query: "a=1", contentType: nil, body: [],
                                                                created: Fixture.now, expires: Fixture.now.adding(seconds: 60))
        #expect(h.signatureInput.hasPrefix(#"cli=("@method" "@authority" "@path" "@query" "content-digest");"#))
        #expect(h.signatureInput.hasSuffix(";expires=\(Fixture.now.seconds + 60)"))
        let r = request(h, query: "a=1", contentType: nil, body: [])
        guard case .valid = RequestSignatureVerifier().verify(r, now: Fixture.now) else { Issue.record("expected valid"); return }
        var altered = r
        altered.query = "a=2"
        #expect(RequestSignatureVerifier().verify(altered, now: Fixture.now) == .invalid(.signatureMismatch))
        #expect(RequestSignatureVerifier().verify(r, now: Fixture.now.adding(seconds: 61)) == .invalid(.signatureExpired))
    }

    @Test func unsignableValuesAreRefused() {
        #expect(throws: RequestSigner.SigningError.self) {
            try RequestSigner(key: key).sign(method: "POST", authority: "h", path: "/a b", body: [], created: Fixture.now)
        }
        #expect(throws: RequestSigner.SigningError.self) {
            try RequestSigner(key: key).sign(method: "POST", authority: "h", path: "/", contentType: "caf\u{e9}", body: [], created: Fixture.now)
        }
    }
}
