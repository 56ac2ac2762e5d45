import BadgeCore
import Crypto
import RequestAuth

/// Builds signed requests whose only defect is the one a test puts in.
enum Fixture {
    static let now = Timestamp(seconds: 1_760_000_000)
    static let body = Array(#"{"version":1,"purchaseKey":"k","request":{"type":"getBadgeCatalog"}}"#.utf8)
    static let defaultComponents = #""@method" "@authority" "@path" "content-type" "content-digest""#

    /// An unsigned POST /rpc with Content-Type and a correct Content-Digest.
    static func request(body: [UInt8] = Fixture.body) -> SignedRequest {
        SignedRequest(method: "POST", path: "/rpc", authority: "badges.example.org", scheme: "https",
                      headers: [("Host", "badges.example.org"), ("Content-Type", "application/json"),
                                ("Content-Digest", ContentDigest.fieldValue(for: body))],
                      body: body)
    }

    /// `request` with `Signature-Input: <label>=(<components>)<parameters>` and a `Signature` made by
    /// `key` over the base those describe (over the text itself when no base can be built).
    static func signed(_ request: SignedRequest = Fixture.request(), key: Ed25519PrivateKey,
                       components: String = Fixture.defaultComponents, parameters: String? = nil,
                       label: String = "sig1") -> SignedRequest {
        let params = parameters ?? ";created=\(now.seconds);keyid=\"\(key.publicKey.purchaseKeyText)\";alg=\"ed25519\""
        let inputText = "\(label)=(\(components))\(params)"
        var message = Array(inputText.utf8)
        if case .innerList(let input)? = try? StructuredFieldParser.dictionary(inputText)[label],
           let base = try? SignatureBase.build(for: request, input: input) {
            message = Array(base.utf8)
        }
        var r = request
        r.headers.append(("Signature-Input", inputText))
        r.headers.append(("Signature", "\(label)=:\(Base64URL.encodeStandard(key.signature(for: message))):"))
        return r
    }
}

extension SignedRequest {
    /// A copy with every line of `name` replaced by `value` (removed when nil).
    func setting(_ name: String, _ value: String?) -> SignedRequest {
        var r = self
        r.headers.removeAll { $0.name.lowercased() == name.lowercased() }
        if let value { r.headers.append((name, value)) }
        return r
    }
}
