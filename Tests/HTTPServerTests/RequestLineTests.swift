import HTTPServer
import Testing

/// RFC 9112 §3:
/// ```
/// request-line   = method SP request-target SP HTTP-version
/// method         = token
/// request-target = origin-form / absolute-form / authority-form / asterisk-form
/// HTTP-version   = HTTP-name "/" DIGIT "." DIGIT
/// ```
@Suite struct RequestLineTests {
    @Test func originFormRequest() throws {
        let (head, body) = try #require(expectRequest("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"))
        #expect(head.method == "GET")
        #expect(head.target == "/healthz")
        #expect(head.path == "/healthz")
        #expect(head.query == nil)
        #expect(head.version == .http1_1)
        #expect(head.keepAlive)
        #expect(head.framing == .none)
        #expect(body.isEmpty)
    }

    @Test func pathAndQueryAreSplitAtTheFirstQuestionMarkAndNotDecoded() throws {
        let (head, _) = try #require(expectRequest(request(target: "/a/b%2Fc?x=1&y=%20?z")))
        #expect(head.path == "/a/b%2Fc")
        #expect(head.query == "x=1&y=%20?z")
        let (empty, _) = try #require(expectRequest(request(target: "/a?")))
        #expect(empty.query == "")
    }

    @Test(arguments: ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"])
    func implementedMethodsAreAccepted(method: String) throws {
        let (head, _) = try #require(expectRequest(request(method: method)))
        #expect(head.method == method)
    }

    /// RFC 9110 §9.1: an unrecognised or unimplemented method SHOULD get 501; methods are case-sensitive.
    @Test(arguments: ["get", "Get", "TRACE", "CONNECT", "PRI", "FOO", "PROPFIND", "GETTTTTTTTTTTTTTTTTT"])
    func otherMethodsAre501(method: String) {
        expectError(request(method: method), .unknownMethod)
        #expect(HTTPParserError.unknownMethod.httpStatus == 501)
    }

    @Test func aMethodLongerThanAnyImplementedIsRefusedBeforeItEnds() {
        // no SP, no CRLF: the parser must not wait for the rest of an unbounded method
        expectError(String(repeating: "A", count: 100), .unknownMethod)
    }

    @Test func http10WithoutHostIsAcceptedAndClosesByDefault() throws {
        let (head, _) = try #require(expectRequest("GET / HTTP/1.0\r\n\r\n"))
        #expect(head.version == .http1_0)
        #expect(!head.keepAlive)
        let (keepAlive, _) = try #require(expectRequest("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"))
        #expect(keepAlive.keepAlive)
    }

    @Test func laterMinorVersionsHaveHTTP11Semantics() throws {
        let (head, _) = try #require(expectRequest(request(version: "HTTP/1.2")))
        #expect(head.version == HTTPVersion(major: 1, minor: 2))
        #expect(head.keepAlive)
        expectError("GET / HTTP/1.2\r\n\r\n", .missingHost)
    }

    /// RFC 9112 §2.2: a server SHOULD ignore at least one empty line before the request-line.
    @Test func fewLeadingEmptyLinesAreIgnored() throws {
        _ = try #require(expectRequest("\r\n\r\n\r\n\r\n" + request()))
        expectError("\r\n\r\n\r\n\r\n\r\n" + request(), .tooManyEmptyLines)
        expectError("\n" + request(), .bareLF)
        expectError("\r" + request(), .bareCR)
    }

    /// RFC 9112 §3.2.2: a server MUST accept absolute-form; the authority replaces Host.
    @Test func absoluteFormIsAccepted() throws {
        let (head, _) = try #require(expectRequest(request(target: "http://example.com/healthz?x=1")))
        #expect(head.path == "/healthz")
        #expect(head.query == "x=1")
        #expect(head.target == "http://example.com/healthz?x=1")
        let (bare, _) = try #require(expectRequest(request(target: "HTTPS://example.com:8443")))
        #expect(bare.path == "/")
        let (queryOnly, _) = try #require(expectRequest(request(target: "http://[::1]:80?q")))
        #expect(queryOnly.path == "/")
        #expect(queryOnly.query == "q")
    }

    @Test(arguments: ["ftp://example.com/", "http://user@example.com/", "http:///a", "http:/a", "http:a",
                      "http", "example.com/a", "http://exa%zzmple/", "http://[::1/"])
    func malformedAbsoluteFormsAre400(target: String) {
        expectError(request(target: target), .invalidTarget)
    }

    @Test func asteriskFormOnlyWithOptions() throws {
        let (head, _) = try #require(expectRequest(request(method: "OPTIONS", target: "*")))
        #expect(head.path == "*")
        expectError(request(target: "*"), .asteriskFormWithoutOptions)
        expectError(request(method: "POST", target: "*"), .asteriskFormWithoutOptions)
        expectError(request(method: "OPTIONS", target: "*x"), .invalidTarget)
        expectError(request(method: "OPTIONS", target: "**"), .invalidTarget)
    }

    static let malformedLines: [(String, HTTPParserError)] = [
        ("GET  /healthz HTTP/1.1\r\nHost: t\r\n\r\n", .invalidRequestLine),        // B05 double space
        ("GET /healthz  HTTP/1.1\r\nHost: t\r\n\r\n", .invalidVersion),
        ("GET\t/healthz HTTP/1.1\r\nHost: t\r\n\r\n", .invalidRequestLine),
        ("GET /healthz\tHTTP/1.1\r\nHost: t\r\n\r\n", .invalidRequestLine),
        (" GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n", .invalidRequestLine),
        ("GET /healthz HTTP/1.1 \r\nHost: t\r\n\r\n", .invalidVersion),
        ("GET /healthz\r\nHost: t\r\n\r\n", .invalidRequestLine),                  // HTTP/0.9 form
        ("GET\r\n\r\n", .invalidRequestLine),
        ("GET \r\n\r\n", .invalidRequestLine),
        ("GET /healthz http/1.1\r\nHost: t\r\n\r\n", .invalidVersion),
        ("GET /healthz HTTP/1.10\r\nHost: t\r\n\r\n", .invalidVersion),
        ("GET /healthz HTTP/1\r\nHost: t\r\n\r\n", .invalidVersion),
        ("GET /healthz HTTP/11\r\nHost: t\r\n\r\n", .invalidVersion),
        ("GET /healthz HTTP/a.1\r\nHost: t\r\n\r\n", .invalidVersion),
        ("GET /healthz HTTPS/1.1\r\nHost: t\r\n\r\n", .invalidVersion),
        ("GET /healthz HTTP/1.1\nHost: t\r\n\r\n", .bareLF),
        ("GET /healthz HTTP/1.1\rHost: t\r\n\r\n", .bareCR),
        ("GET /healthz\n", .bareLF),
        ("G(T /healthz HTTP/1.1\r\nHost: t\r\n\r\n", .invalidMethod),
        ("GE\"T /healthz HTTP/1.1\r\nHost: t\r\n\r\n", .invalidMethod),
        ("\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}\u{00}\u{01}\u{fc}\u{03}\u{03}", .invalidRequestLine),  // a TLS ClientHello
        ("\u{00}GET / HTTP/1.1\r\n", .invalidRequestLine),
    ]

    @Test(arguments: malformedLines)
    func malformedRequestLinesAre400(text: String, error: HTTPParserError) {
        expectError(text, error)
        #expect(error.httpStatus == 400)
    }

    /// Major version ≠ 1, including the HTTP/2 connection preface → 505.
    @Test(arguments: ["PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "GET / HTTP/2.0\r\nHost: t\r\n\r\n",
                      "GET / HTTP/3.0\r\nHost: t\r\n\r\n", "GET / HTTP/0.9\r\nHost: t\r\n\r\n",
                      "FOO / HTTP/2.0\r\n\r\n"])
    func otherMajorVersionsAre505(text: String) {
        expectError(text, .unsupportedVersion)
        #expect(HTTPParserError.unsupportedVersion.httpStatus == 505)
    }

    @Test(arguments: ["/a\"b", "/a<b", "/a>b", "/a{b", "/a}b", "/a|b", "/a\\b", "/a^b", "/a`b", "/a#frag",
                      "/%zz", "/%4", "/%4g", "/a[b", "/a]b", "http://h/[x]", "/\u{80}", "/\u{ff}", "/\u{7f}", "/a\u{00}b", "?x", "%2F", "#a", "[::1]"])
    func targetsWithBytesOutsideRFC3986Are400(target: String) {
        expectError(request(target: target), .invalidTarget)
    }

    /// RFC 9112 §3: a server MUST answer 414 to a target longer than it wishes to parse, and
    /// SHOULD support request-lines of at least 8000 octets.
    @Test func targetLengthLimitIs414() throws {
        let limits = HTTPLimits(maxTargetLength: 8192)
        _ = try #require(expectRequest(request(target: "/" + String(repeating: "a", count: 8191)), limits: limits))
        expectError(request(target: "/" + String(repeating: "a", count: 8192)), .targetTooLong, limits: limits)
        // B18: refused as soon as the limit is passed, without waiting for the rest of the line
        expectError("GET /" + String(repeating: "a", count: 9000), .targetTooLong, limits: limits)
        expectError("GET /" + String(repeating: "%41", count: 3000), .targetTooLong, limits: limits)
        #expect(HTTPParserError.targetTooLong.httpStatus == 414)
    }
}
