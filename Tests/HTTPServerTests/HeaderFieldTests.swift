import HTTPServer
import Testing

/// RFC 9112 §5, RFC 9110 §5.5:
/// ```
/// field-line   = field-name ":" OWS field-value OWS
/// field-name   = token
/// field-value  = *field-content
/// field-content = field-vchar [ 1*( SP / HTAB / field-vchar ) field-vchar ]
/// field-vchar  = VCHAR / obs-text
/// ```
@Suite struct HeaderFieldTests {
    @Test func containsAnyOfSeveralNamesInAnyCase() {
        let headers: HTTPHeaders = ["Host": "a", "content-TYPE": "application/json", "Signature-Input": "x"]
        #expect(headers.containsAny(of: ["Authorization", "signature-input"]))
        #expect(headers.containsAny(of: ["CONTENT-type"]))
        #expect(!headers.containsAny(of: ["Signature", "Authorization", "Content-Typ", "Hosts"]))
        #expect(!headers.containsAny(of: []))
        #expect(!HTTPHeaders().containsAny(of: ["Host"]))
    }

    @Test func fieldsKeepOrderAndCaseAndTrimOnlyOuterWhitespace() throws {
        let (head, _) = try #require(expectRequest(request("X-One:a\r\nx-two: \t b  c \t\r\nX-One: second\r\nX-Empty:\r\nX-Blank:   \r\n")))
        let fields = head.headers.map { "\($0.name)=\($0.value)" }
        #expect(fields == ["Host=t", "X-One=a", "x-two=b  c", "X-One=second", "X-Empty=", "X-Blank="])
        #expect(head.headers.values(for: "x-one") == ["a", "second"])
        #expect(head.headers.first("X-TWO") == "b  c")
    }

    @Test func obsTextIsKeptAsLatin1Octets() throws {
        let (head, _) = try #require(expectRequest(request("X-Bin: caf\u{e9} \u{80}\u{ff}\r\n")))
        let value = try #require(head.headers.first("x-bin"))
        #expect(HTTPHeaders.octets(of: value) == [0x63, 0x61, 0x66, 0xE9, 0x20, 0x80, 0xFF])
    }

    static let malformed: [(String, HTTPParserError)] = [
        ("X-A : b\r\n", .whitespaceBeforeColon),                // RFC 9112 §5.1 MUST 400
        ("X-A\t: b\r\n", .whitespaceBeforeColon),
        ("X-A b: c\r\n", .whitespaceBeforeColon),
        ("X-A: a\r\n b\r\n", .obsoleteLineFolding),              // C05
        ("X-A: a\r\n\tb\r\n", .obsoleteLineFolding),
        (": b\r\n", .invalidFieldName),
        ("X(A: b\r\n", .invalidFieldName),
        ("X-A\r\n", .invalidFieldName),
        ("X\u{e9}: b\r\n", .invalidFieldName),
        ("X-A: a\u{00}b\r\n", .invalidFieldValue),
        ("X-A: a\u{01}b\r\n", .invalidFieldValue),
        ("X-A: a\u{7f}b\r\n", .invalidFieldValue),
        ("X-A: \u{0b}b\r\n", .invalidFieldValue),
        ("X-A: a\rb\r\n", .bareCR),
        ("X-A: a\nX-B: b\r\n", .bareLF),
        ("X-A: a\r\r\n", .bareCR),
        ("X-A\n: b\r\n", .bareLF),
    ]

    @Test(arguments: malformed)
    func malformedFieldLinesAre400(fields: String, error: HTTPParserError) {
        expectError(request(fields), error)
        #expect(error.httpStatus == 400)
    }

    @Test func whitespaceBeforeTheFirstFieldLineIs400() {
        expectError("GET / HTTP/1.1\r\n Host: t\r\n\r\n", .obsoleteLineFolding)
        expectError("GET / HTTP/1.1\r\n\tHost: t\r\n\r\n", .obsoleteLineFolding)
    }

    @Test func theHeadMustEndWithCRLF() {
        expectError("GET / HTTP/1.1\r\nHost: t\r\n\n", .bareLF)
        expectError("GET / HTTP/1.1\r\nHost: t\r\n\rX", .bareCR)
        expectError("GET / HTTP/1.1\r\nHost: t\n\r\n", .bareLF)
    }

    // MARK: Host (RFC 9112 §3.2)

    @Test func hostIsRequiredOnceIn11() {
        expectError("GET / HTTP/1.1\r\n\r\n", .missingHost)
        expectError("GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", .duplicateHost)
        expectError("GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", .duplicateHost)
        expectError("GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", .duplicateHost)
        expectError("GET / HTTP/1.1\r\nX-Host: a\r\n\r\n", .missingHost)
    }

    @Test(arguments: ["example.com", "example.com:8080", "127.0.0.1", "127.0.0.1:80", "[::1]", "[::1]:443",
                      "a-b_c~d.example", "x%41y", "host:"])
    func validHostValues(host: String) throws {
        _ = try #require(expectRequest("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n"))
    }

    @Test(arguments: ["a b", "a@b", "a/b", "a?b", "[::1", "[::1]x", "[]", "host:80x", "host:-1", "ho%zzst",
                      "ho%4", "h\"ost", "a,b", "a, b", "u@t", "t/x", "", ":80", "host:80:80", "[::1]:8a", "\u{e9}.example"])
    func invalidHostValuesAre400(host: String) {
        expectError("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n", .invalidHost)
    }

    // MARK: Limits (RFC 6585 §5: 431)

    @Test func fieldLineLengthLimit() throws {
        let limits = HTTPLimits(maxFieldLineLength: 100)
        let fits = "X-A: " + String(repeating: "v", count: 95) + "\r\n"       // 100 octets without CRLF
        _ = try #require(expectRequest(request(fits), limits: limits))
        let over = "X-A: " + String(repeating: "v", count: 96) + "\r\n"
        expectError(request(over), .fieldLineTooLong, limits: limits)
        // trailing whitespace counts too, and the refusal comes before the line ends
        expectError(request("X-A: v" + String(repeating: " ", count: 200)), .fieldLineTooLong, limits: limits)
        expectError(request(String(repeating: "N", count: 200)), .fieldLineTooLong, limits: limits)
        #expect(HTTPParserError.fieldLineTooLong.httpStatus == 431)
    }

    @Test func defaultFieldLineLimitIs8KiB() throws {
        let fits = "X-A: " + String(repeating: "v", count: 8192 - 5) + "\r\n"
        _ = try #require(expectRequest(request(fits)))
        expectError(request("X-A: " + String(repeating: "v", count: 8192 - 4) + "\r\n"), .fieldLineTooLong)
    }

    @Test func headerSectionSizeLimit() throws {
        let limits = HTTPLimits(maxFieldLineLength: 1000, maxHeaderSectionSize: 1000)
        // "Host: t\r\n" is 9 octets; each X line is 100 octets with its CRLF
        let line = "X-A: " + String(repeating: "v", count: 93) + "\r\n"
        _ = try #require(expectRequest(request(String(repeating: line, count: 9)), limits: limits))
        expectError(request(String(repeating: line, count: 10)), .headerSectionTooLarge, limits: limits)
        #expect(HTTPParserError.headerSectionTooLarge.httpStatus == 431)
    }

    @Test func defaultHeaderSectionLimitIs16KiB() {
        let line = "X-A: " + String(repeating: "v", count: 4000) + "\r\n"
        expectError(request(String(repeating: line, count: 5)), .headerSectionTooLarge)
    }

    /// C14: with a 100-field limit, 101 field lines (Host + 100) are refused.
    @Test func fieldCountLimit() throws {
        let ninetyNine = (0..<99).map { "X-\($0): v\r\n" }.joined()
        _ = try #require(expectRequest(request(ninetyNine)))
        expectError(request(ninetyNine + "X-last: v\r\n"), .tooManyFields)
        expectError(request((0..<200).map { "X-\($0): v\r\n" }.joined()), .tooManyFields)
        #expect(HTTPParserError.tooManyFields.httpStatus == 431)
    }

    // MARK: Connection (RFC 9112 §9.3)

    @Test(arguments: [("HTTP/1.1", "", true), ("HTTP/1.1", "Connection: close\r\n", false),
                      ("HTTP/1.1", "Connection: foo, CLOSE\r\n", false), ("HTTP/1.1", "Connection: keep-alive\r\n", true),
                      ("HTTP/1.0", "", false), ("HTTP/1.0", "Connection: keep-alive\r\n", true),
                      ("HTTP/1.0", "Connection: Keep-Alive\r\n", true), ("HTTP/1.0", "Connection: keep-alive, close\r\n", false),
                      ("HTTP/1.0", "Connection: x\r\nConnection: keep-alive\r\n", true)])
    func persistence(version: String, fields: String, keepAlive: Bool) throws {
        let (head, _) = try #require(expectRequest(request(fields, version: version)))
        #expect(head.keepAlive == keepAlive)
    }

    // MARK: Expect (RFC 9110 §10.1.1)

    @Test func expectContinue() throws {
        let post = { (fields: String, version: String) in
            expectRequest(request("Content-Length: 2\r\n" + fields, method: "POST", target: "/v1/echo",
                                  version: version, body: "{}"))
        }
        #expect(try #require(post("Expect: 100-continue\r\n", "HTTP/1.1")).head.expectsContinue)
        #expect(try #require(post("Expect: 100-Continue\r\n", "HTTP/1.1")).head.expectsContinue)
        // HTTP/1.0: the expectation MUST be ignored
        #expect(try !#require(post("Expect: 100-continue\r\n", "HTTP/1.0")).head.expectsContinue)
        // nothing to continue without a body
        #expect(try !#require(expectRequest(request("Expect: 100-continue\r\n"))).head.expectsContinue)
    }

    @Test(arguments: ["Expect: foo\r\n", "Expect: 100-continue, foo\r\n", "Expect: 100-continue\r\nExpect: bar\r\n",
                      "Expect: 100-continue;x=1\r\n", "Expect: 200-ok\r\n"])
    func otherExpectationsAre417(fields: String) {
        expectError(request(fields), .unsupportedExpectation)
        #expect(HTTPParserError.unsupportedExpectation.httpStatus == 417)
    }
}
