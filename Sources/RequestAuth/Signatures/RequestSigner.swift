import BadgeCore
import Crypto

/// Signs requests the way the gateway verifies them, for our CLI client and tests.
///
/// Covers `"@method" "@authority" "@path"`, `"@query"` when there is a query (so it cannot be
/// altered), `"content-type"` when one is given, and `"content-digest"`; parameters
/// `created`, `keyid` (the purchase key), `alg="ed25519"`, and `expires` when given.
public struct RequestSigner: Sendable {
    /// The headers to add to the request (the caller sends `Content-Type` itself, with the value signed).
    public struct Headers: Hashable, Sendable {
        /// The `Content-Digest` value (`sha-256=:…:`).
        public let contentDigest: String
        /// The `Signature-Input` value (`<label>=(…);created=…;keyid="…";alg="ed25519"`).
        public let signatureInput: String
        /// The `Signature` value (`<label>=:…:`).
        public let signature: String

        /// `Content-Digest`, `Signature-Input`, `Signature`, ready to append to a request.
        public var fields: [(name: String, value: String)] {
            [("Content-Digest", contentDigest), ("Signature-Input", signatureInput), ("Signature", signature)]
        }
    }

    /// The request cannot be signed: a value a signature base cannot hold (controls, non-ASCII).
    public struct SigningError: Error, Hashable, Sendable {}

    /// The purchase key pair signing; its public half becomes `keyid`.
    public let key: Ed25519PrivateKey
    /// The signature label; not signed, any RFC 8941 key.
    public let label: String

    /// A signer for `key`; `label` must be an RFC 8941 key (traps otherwise: a programming error).
    public init(key: Ed25519PrivateKey, label: String = "sig1") {
        precondition((try? StructuredFieldSerializer.key(label)) != nil, "signature label must be an RFC 8941 key")
        self.key = key
        self.label = label
    }

    /// The signature headers for a request; `authority` is the `Host` value the request will carry.
    public func sign(method: String, authority: String, path: String, query: String? = nil,
                     contentType: String? = "application/json", body: [UInt8], created: Timestamp,
                     expires: Timestamp? = nil) throws(SigningError) -> Headers {
        let digest = ContentDigest.fieldValue(for: body)
        var headers: [(name: String, value: String)] = [("Host", authority)]
        var covered = ["@method", "@authority", "@path"]
        if query != nil { covered.append("@query") }
        if let contentType {
            headers.append(("Content-Type", contentType))
            covered.append("content-type")
        }
        headers.append(("Content-Digest", digest))
        covered.append("content-digest")

        var parameters = SFParameters([
            ("created", .integer(created.seconds)),
            ("keyid", .string(key.publicKey.purchaseKeyText)),
            ("alg", .string("ed25519")),
        ])
        if let expires { parameters["expires"] = .integer(expires.seconds) }
        let input = SFInnerList(covered.map { SFItem(.string($0)) }, parameters: parameters)

        let request = SignedRequest(method: method, path: path, query: query, authority: authority,
                                    headers: headers, body: body)
        let base: String
        let inputText: String
        do {
            base = try SignatureBase.build(for: request, input: input)
            inputText = try StructuredFieldSerializer.dictionary(SFDictionary([(label, .innerList(input))]))
        } catch {
            throw SigningError()
        }
        let signature = key.signature(for: Array(base.utf8))
        let signatureText = try! StructuredFieldSerializer.dictionary(SFDictionary([(label, .item(SFItem(.byteSequence(signature))))]))
        return Headers(contentDigest: digest, signatureInput: inputText, signature: signatureText)
    }
}
