import BadgeCore
import Crypto
import RequestAuth
import Testing

/// The label's Signature-Input member and Signature bytes of an RFC 9421 example.
private func parseSignature(input: String, signature: String, label: String) throws -> (SFInnerList, [UInt8]) {
    guard case .innerList(let list) = try StructuredFieldParser.dictionary(input)[label],
          case .item(let item) = try StructuredFieldParser.dictionary(signature)[label],
          case .byteSequence(let bytes) = item.bareItem
    else { throw RFC9421Vectors.Missing(path: "signature member \(label)") }
    return (list, bytes)
}

@Suite struct SignatureBaseTests {
    // RFC 9421 B.2.6: the base byte for byte, and the RFC's signature under the B.1.4 key.
    @Test func b26SignatureBaseAndSignature() throws {
        let v = try RFC9421Vectors()
        let request = try RFC9421Vectors.request(fromHTTP1: v.string("test_request_http1"))
        let (input, signature) = try parseSignature(input: v.string("B_2_6", "Signature-Input"),
                                                    signature: v.string("B_2_6", "Signature"), label: "sig-b26")
        let base = try SignatureBase.build(for: request, input: input)
        #expect(base == (try v.string("B_2_6", "signature_base")))
        #expect(base.utf8.count == 284)
        #expect(Hex.encode(SHA256.hash(Array(base.utf8))) == (try v.string("B_2_6", "signature_base_sha256_hex")))
        #expect(Hex.encode(SHA256.hash(Array(base.utf8))) == "e6402577f54303accfda63dfbde1a7b8c5e5e6f3f7898637b7d78dc07ee1896a")

        let key = try v.testKey()
        #expect(Hex.encode(key.publicKey.raw) == (try v.string("test_key_ed25519", "public_raw_hex")))
        #expect(key.publicKey.isValidSignature(signature, for: Array(base.utf8)))
        // Ed25519 is deterministic: re-signing reproduces the RFC's bytes.
        #expect(key.signature(for: Array(base.utf8)) == signature)
    }

    // RFC 9421 B.4: which transformations keep the `transform` signature valid.
    enum Transform: String, CaseIterable, Sendable {
        case addAcceptLanguage = "add Accept-Language header"
        case addQueryParameter = "add query parameter"
        case dropDateAddRefererFoldAccept = "remove Date, add Referer, collapse the two Accept lines into 'Accept: application/json, */*'"
        case reorderFields = "reorder distinct header fields (keeping the two Accept lines in order)"
        case postToOtherHost = "method changed to POST and Host to example.com"
        case swapAcceptLines = "swap order of the two Accept lines"

        func apply(_ r: SignedRequest) -> SignedRequest {
            var r = r
            switch self {
            case .addAcceptLanguage:
                r.headers.append(("Accept-Language", "en-US,en;q=0.5"))
            case .addQueryParameter:
                r.query = (r.query ?? "") + "&param=added"
            case .dropDateAddRefererFoldAccept:
                r.headers = [("Host", "example.org"), ("Referer", "https://developer.example.org/demo"),
                             ("Accept", "application/json, */*")]
            case .reorderFields:
                r.headers = [("Accept", "application/json"), ("Date", "Fri, 15 Jul 2022 14:24:55 GMT"),
                             ("Accept", "*/*"), ("Host", "example.org")]
            case .postToOtherHost:
                r.method = "POST"
                r.authority = "example.com"
                r.headers = r.headers.map { $0.name.lowercased() == "host" ? ($0.name, "example.com") : $0 }
            case .swapAcceptLines:
                let accepts = r.headers.filter { $0.name.lowercased() == "accept" }
                var others = r.headers.filter { $0.name.lowercased() != "accept" }
                others.append(contentsOf: accepts.reversed())
                r.headers = others
            }
            return r
        }
    }

    @Test func b4OriginalRequest() throws {
        let v = try RFC9421Vectors()
        let request = try RFC9421Vectors.request(fromHTTP1: v.string("B_4_transform", "request_http1"))
        let (input, signature) = try parseSignature(input: v.string("B_4_transform", "Signature-Input"),
                                                    signature: v.string("B_4_transform", "Signature"), label: "transform")
        let base = try SignatureBase.build(for: request, input: input)
        #expect(base == (try v.string("B_4_transform", "signature_base")))
        #expect(try v.testKey().publicKey.isValidSignature(signature, for: Array(base.utf8)))
    }

    @Test(arguments: Transform.allCases)
    func b4Transformation(_ transform: Transform) throws {
        let v = try RFC9421Vectors()
        let stillValid = try #require(try v.object("B_4_transform", "still_valid_after") as? [String])
        let invalid = try #require(try v.object("B_4_transform", "invalid_after") as? [String])
        // Every listed case is one of ours, so the vectors cannot grow a case we silently skip.
        #expect(Set(stillValid + invalid) == Set(Transform.allCases.map(\.rawValue)))
        let expectValid = stillValid.contains(transform.rawValue)
        #expect(expectValid != invalid.contains(transform.rawValue))

        let request = transform.apply(try RFC9421Vectors.request(fromHTTP1: v.string("B_4_transform", "request_http1")))
        let (input, signature) = try parseSignature(input: v.string("B_4_transform", "Signature-Input"),
                                                    signature: v.string("B_4_transform", "Signature"), label: "transform")
        let base = try SignatureBase.build(for: request, input: input)
        #expect(try v.testKey().publicKey.isValidSignature(signature, for: Array(base.utf8)) == expectValid)
    }

    // MARK: Components

    private func base(_ components: String, _ request: SignedRequest, parameters: String = "") throws(SignatureBaseError) -> String {
        let input: SFInnerList
        do {
            guard case .innerList(let l) = try StructuredFieldParser.dictionary("s=(\(components))\(parameters)")["s"] else { fatalError() }
            input = l
        } catch { fatalError("bad test input \(components)") }
        return try SignatureBase.build(for: request, input: input)
    }

    private func lines(_ components: String, _ request: SignedRequest) throws -> [String] {
        Array(try base(components, request).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init))
    }

    let sample = SignedRequest(method: "POST", path: "/rpc/a%20b", query: "x=1&y=%2F", authority: "Example.COM:443",
                               scheme: "https",
                               headers: [("Host", "Example.COM:443"), ("X-Multi", "  one "), ("content-type", "application/json"),
                                         ("x-multi", "two,  three\t"), ("X-Empty", ""),
                                         ("Content-Digest", "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:, sha-512=:AA==:;p")],
                               body: [])

    @Test func derivedComponents() throws {
        #expect(try lines("\"@method\" \"@authority\" \"@scheme\" \"@target-uri\" \"@request-target\" \"@path\" \"@query\"", sample) == [
            "\"@method\": POST",
            "\"@authority\": example.com",
            "\"@scheme\": https",
            "\"@target-uri\": https://example.com/rpc/a%20b?x=1&y=%2F",
            "\"@request-target\": /rpc/a%20b?x=1&y=%2F",
            "\"@path\": /rpc/a%20b",
            "\"@query\": ?x=1&y=%2F",
        ])
    }

    @Test func emptyPathAndAbsentQuery() throws {
        let r = SignedRequest(method: "GET", path: "", authority: "h", headers: [], body: [])
        #expect(try lines("\"@path\" \"@query\" \"@request-target\"", r) == ["\"@path\": /", "\"@query\": ?", "\"@request-target\": /"])
        var emptyQuery = r
        emptyQuery.query = ""
        #expect(try lines("\"@query\"", emptyQuery) == ["\"@query\": ?"])
    }

    @Test(arguments: [
        ("example.com", "http", "example.com"),
        ("EXAMPLE.com:80", "http", "example.com"),
        ("example.com:80", "https", "example.com:80"),
        ("example.com:443", "https", "example.com"),
        ("127.0.0.1:8080", "http", "127.0.0.1:8080"),
        ("[::1]:80", "http", "[::1]"),
        ("[::1]:8443", "https", "[::1]:8443"),
        ("example.com:", "http", "example.com"),
    ])
    func authorityNormalisation(host: String, scheme: String, expected: String) throws {
        let r = SignedRequest(method: "GET", path: "/", authority: host, scheme: scheme, headers: [("Host", host)], body: [])
        #expect(try lines("\"@authority\"", r) == ["\"@authority\": \(expected)"])
    }

    @Test func fieldsAreTrimmedAndJoinedInOrder() throws {
        #expect(try lines("\"x-multi\" \"x-empty\" \"content-type\"", sample) == [
            "\"x-multi\": one, two,  three",
            "\"x-empty\": ",
            "\"content-type\": application/json",
        ])
    }

    /// RFC 9110 §5.3 combining: a single line trimmed (or kept as it is), several joined in order, any case.
    @Test func combinedFieldTrimsOneLineAndJoinsSeveral() {
        let r = SignedRequest(method: "GET", path: "/", authority: "h",
                              headers: [("X-One", " \tpadded\t "), ("x-multi", " a "), ("X-Other", "o"), ("X-MULTI", "b\t"),
                                        ("x-plain", "as it is"), ("x-blank", "  ")], body: [])
        #expect(r.combinedField("x-one") == "padded")
        #expect(r.combinedField("X-Multi") == "a, b")
        #expect(r.combinedField("x-plain") == "as it is")
        #expect(r.combinedField("x-blank") == "")
        #expect(r.combinedField("x-absent") == nil)
        #expect(r.fieldLines("x-multi") == [" a ", "b\t"])
    }

    @Test func dictionaryMemberAndStrictSerialisation() throws {
        #expect(try lines("\"content-digest\";key=\"sha-512\" \"content-digest\";sf", sample) == [
            "\"content-digest\";key=\"sha-512\": :AA==:;p",
            "\"content-digest\";sf: sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:, sha-512=:AA==:;p",
        ])
        #expect(throws: SignatureBaseError.absentField) { try self.base("\"content-digest\";key=\"md5\"", self.sample) }
        #expect(throws: SignatureBaseError.unsupportedComponent) { try self.base("\"x-multi\";sf", self.sample) }
    }

    @Test func byteSequenceWrapping() throws {
        #expect(try lines("\"x-multi\";bs", sample) == ["\"x-multi\";bs: :b25l:, :dHdvLCAgdGhyZWU=:"])
    }

    @Test func signatureParamsLineIsTheMemberReserialised() throws {
        // Extra spaces and parameter order as sent; the line is the strict re-serialisation.
        let text = try base("  \"@method\"   \"content-digest\";key=\"sha-256\" ", sample,
                            parameters: ";created=1;keyid=\"k\";alg=\"ed25519\";expires=2;nonce=\"n\";x=?1")
        #expect(text == "\"@method\": POST\n"
                + "\"content-digest\";key=\"sha-256\": :X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:\n"
                + "\"@signature-params\": (\"@method\" \"content-digest\";key=\"sha-256\");created=1;keyid=\"k\";alg=\"ed25519\";expires=2;nonce=\"n\";x")
    }

    @Test(arguments: [
        ("\"@method\" \"@method\"", SignatureBaseError.duplicateComponent),
        ("\"content-digest\";key=\"sha-256\";sf \"content-digest\";sf;key=\"sha-256\"", .duplicateComponent),
        ("\"Content-Type\"", .malformedComponent),
        ("content-type", .malformedComponent),
        ("\"\"", .malformedComponent),
        ("\"@signature-params\"", .signatureParamsCovered),
        ("\"@status\"", .unsupportedComponent),
        ("\"@query-param\";name=\"x\"", .unsupportedComponent),
        ("\"@method\";req", .unsupportedComponent),
        ("\"content-type\";req", .unsupportedComponent),
        ("\"content-type\";tr", .unsupportedComponent),
        ("\"@unknown\"", .unsupportedComponent),
        ("\"x-absent\"", .absentField),
    ])
    func refusals(components: String, error: SignatureBaseError) {
        #expect(throws: error) { try self.base(components, self.sample) }
    }

    @Test func controlCharactersAndNonASCIIAreRefused() {
        for value in ["a\nb", "a\rb", "caf\u{e9}", "a\u{7f}"] {
            var r = sample
            r.headers.append(("X-Bad", value))
            #expect(throws: SignatureBaseError.invalidComponentValue) { try self.base("\"x-bad\"", r) }
        }
        var r = sample
        r.path = "/a b"
        #expect(throws: SignatureBaseError.invalidComponentValue) { try self.base("\"@path\"", r) }
        var tab = sample
        tab.headers.append(("X-Tab", "a\tb"))
        #expect((try? self.base("\"x-tab\"", tab)) != nil)
    }
}
