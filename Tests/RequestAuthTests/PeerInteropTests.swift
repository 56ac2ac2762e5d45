import BadgeCore
import Crypto
import Foundation
import RequestAuth
import TestSupport
import Testing

/// Interoperability with an independent implementation: PyPI `http-message-signatures` 3.0.0
/// (Tests/Peers/rfc9421_peer.py), signing as a third-party client would and verifying our signer.
@Suite(.timeLimit(.minutes(5))) struct PeerInteropTests {
    struct SignCase: Codable {
        var url: String
        var method = "POST"
        var body_b64: String
        var content_type: String?
        var covered: [String]
        var include_alg: Bool
        var created: Int64
        var label: String?
    }

    struct Signed: Codable {
        let keyid: String
        let public_key_hex: String
        let path_url: String
        let headers: [[String]]
    }

    struct VerifyCase: Codable {
        let url: String
        var method = "POST"
        let headers: [[String]]
        let body_b64: String
        let public_key_hex: String
    }

    struct Verified: Codable {
        let ok: Bool
        let error: String?
        let label: String?
        let covered: [String]?
    }

    struct Batch<T: Codable>: Codable { let cases: [T] }

    private func peer<In: Codable, Out: Codable>(_ command: String, _ cases: [In]) throws -> [Out] {
        let output = try PeerPython.run(script: "rfc9421_peer.py", arguments: [command],
                                        input: try JSONEncoder().encode(Batch(cases: cases)))
        return try JSONDecoder().decode(Batch<Out>.self, from: output).cases
    }

    /// The request our gateway would receive from the peer's client for `url`.
    private func received(_ signed: Signed, url: String, method: String, body: [UInt8]) throws -> SignedRequest {
        let components = try #require(URLComponents(string: url))
        let host = try #require(components.host)
        let authority = components.port.map { "\(host):\($0)" } ?? host
        let target = signed.path_url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let headers = [("Host", authority)] + signed.headers.map { (name: $0[0], value: $0[1]) }
        return SignedRequest(method: method, path: String(target[0]), query: target.count > 1 ? String(target[1]) : nil,
                             authority: authority, scheme: components.scheme ?? "http", headers: headers, body: body)
    }

    static let created = Fixture.now.seconds
    static let json = Array(#"{"version":1,"request":{"type":"getBadgeCatalog"}}"#.utf8)

    static let signCases: [SignCase] = [
        // As the brief's third-party client: @method @authority @path content-digest, with and without alg.
        SignCase(url: "http://127.0.0.1:8080/rpc", body_b64: Data(json).base64EncodedString(), content_type: "application/json",
                 covered: ["@method", "@authority", "@path", "content-digest"], include_alg: true, created: created),
        SignCase(url: "http://127.0.0.1:8080/rpc", body_b64: Data(json).base64EncodedString(), content_type: "application/json",
                 covered: ["@method", "@authority", "@path", "content-digest"], include_alg: false, created: created),
        // @target-uri instead of @path.
        SignCase(url: "https://badges.example.org/rpc", body_b64: Data(json).base64EncodedString(), content_type: "application/json",
                 covered: ["@method", "@target-uri", "content-digest"], include_alg: true, created: created, label: "pyhms"),
        SignCase(url: "https://badges.example.org:8443/rpc", body_b64: Data(json).base64EncodedString(), content_type: "application/json",
                 covered: ["@target-uri", "@method"], include_alg: false, created: created),
        // content-digest left for the library to append; content-type covered.
        SignCase(url: "http://localhost:8080/rpc", body_b64: Data(json).base64EncodedString(), content_type: "application/json",
                 covered: ["@method", "@authority", "@path", "content-type"], include_alg: true, created: created, label: "client"),
        // A query, explicitly covered; an explicit default port (the library drops it from @authority, so must we).
        SignCase(url: "http://badges.example.org:80/rpc?trace=1", body_b64: "", content_type: nil,
                 covered: ["@method", "@authority", "@path", "@query", "@request-target", "@scheme", "content-digest"],
                 include_alg: true, created: created),
    ]

    @Test func weAcceptPeerSignaturesAndRefuseATamperedBody() throws {
        let signed: [Signed] = try peer("sign", Self.signCases)
        try #require(signed.count == Self.signCases.count)
        for (c, s) in zip(Self.signCases, signed) {
            let body = try #require(Data(base64Encoded: c.body_b64)).map { $0 }
            let request = try received(s, url: c.url, method: c.method, body: body)
            #expect(s.keyid.count == 60 && s.keyid.hasPrefix("MCowBQYDK2VwAyEA"))
            let verdict = RequestSignatureVerifier().verify(request, now: Fixture.now)
            guard case .valid(let signer) = verdict else {
                Issue.record("peer case \(c.url) \(c.covered): \(verdict); headers \(s.headers)")
                continue
            }
            #expect(signer.keyID == s.keyid)
            #expect(Hex.encode(signer.publicKey.raw) == s.public_key_hex)
            #expect(signer.source == .httpSignature(label: c.label ?? "sig1", created: Self.created))
            #expect(signer.matches(purchaseKey: s.keyid))

            var tampered = request
            if tampered.body.isEmpty { tampered.body = [0x20] } else { tampered.body[tampered.body.count / 2] ^= 0x01 }
            let refusal = RequestSignatureVerifier().verify(tampered, now: Fixture.now)
            #expect(refusal == .invalid(.contentDigestMismatch))
        }
    }

    @Test func peerSignatureOutsideTheWindowIsRefused() throws {
        let signed: [Signed] = try peer("sign", [Self.signCases[0]])
        let request = try received(signed[0], url: Self.signCases[0].url, method: "POST", body: Self.json)
        #expect(RequestSignatureVerifier().verify(request, now: Fixture.now.adding(seconds: 301)) == .invalid(.signatureStale))
    }

    @Test func peerVerifiesOurSigner() throws {
        let key = Ed25519PrivateKey()
        let now = Timestamp(seconds: Int64(Date().timeIntervalSince1970))
        let signer = RequestSigner(key: key)
        let plain = try signer.sign(method: "POST", authority: "127.0.0.1:8080", path: "/rpc", body: Self.json, created: now)
        let withQuery = try RequestSigner(key: key, label: "cli").sign(
            method: "POST", authority: "badges.example.org", path: "/rpc", query: "a=1", contentType: nil, body: [],
            created: now, expires: now.adding(seconds: 60))
        func fields(_ h: RequestSigner.Headers, contentType: String?) -> [[String]] {
            (contentType.map { [["Content-Type", $0]] } ?? []) + h.fields.map { [$0.name, $0.value] }
        }
        let hex = Hex.encode(key.publicKey.raw)
        let cases = [
            VerifyCase(url: "http://127.0.0.1:8080/rpc", headers: fields(plain, contentType: "application/json"),
                       body_b64: Data(Self.json).base64EncodedString(), public_key_hex: hex),
            VerifyCase(url: "https://badges.example.org/rpc?a=1", headers: fields(withQuery, contentType: nil),
                       body_b64: "", public_key_hex: hex),
            // Negative controls: the peer must refuse a changed body and a changed path.
            VerifyCase(url: "http://127.0.0.1:8080/rpc", headers: fields(plain, contentType: "application/json"),
                       body_b64: Data(Self.json + [0x20]).base64EncodedString(), public_key_hex: hex),
            VerifyCase(url: "http://127.0.0.1:8080/rpc2", headers: fields(plain, contentType: "application/json"),
                       body_b64: Data(Self.json).base64EncodedString(), public_key_hex: hex),
        ]
        let results: [Verified] = try peer("verify", cases)
        try #require(results.count == 4)
        #expect(results[0].ok, "\(results[0].error ?? "")")
        #expect(results[0].label == "sig1")
        #expect(results[0].covered == ["\"@method\"", "\"@authority\"", "\"@path\"", "\"content-type\"", "\"content-digest\"",
                                       "\"@signature-params\""])
        #expect(results[1].ok, "\(results[1].error ?? "")")
        #expect(results[1].label == "cli")
        #expect(!results[2].ok)
        #expect(!results[3].ok)
    }
}
