import HTTPServer
import Testing

/// RFC 9112 §6.2–6.3: `Content-Length = 1*DIGIT`; several values are refused even when equal
/// (strict choice, as SwiftNIO/llhttp do); no length and no coding means an empty body.
@Suite struct ContentLengthTests {
    func post(_ fields: String, body: String = "") -> String {
        request(fields, method: "POST", target: "/v1/echo", body: body)
    }

    @Test func bodyIsExactlyContentLengthOctets() throws {
        let parts = parseAllWays(latin1(post("Content-Length: 2\r\n", body: "{}")))
        guard case .head(let head)? = parts.first else { Issue.record("\(parts)"); return }
        #expect(head.framing == .contentLength(2))
        #expect(Array(parts.dropFirst()) == [.body(Array("{}".utf8)), .end])
    }

    @Test func leadingZerosAreDecimal() throws {
        let (head, body) = try #require(expectRequest(post("Content-Length: 010\r\n", body: "0123456789")))
        #expect(head.framing == .contentLength(10))
        #expect(body.count == 10)
        let (zero, _) = try #require(expectRequest(post("Content-Length: 0000\r\n")))
        #expect(zero.framing == .none)
    }

    @Test func noLengthMeansNoBodyAndTheNextBytesAreTheNextRequest() {
        let parts = parseAllWays(latin1(post("") + "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"))
        #expect(parts.count == 4)
        #expect(parts[1] == .end)
        guard case .head(let second) = parts[2] else { Issue.record("\(parts)"); return }
        #expect(second.method == "GET")
    }

    @Test func bodyOnGETIsFramedLikeAnyOther() throws {
        let (head, body) = try #require(expectRequest(request("Content-Length: 3\r\n", body: "abc")))
        #expect(head.method == "GET")
        #expect(body == Array("abc".utf8))
    }

    @Test func pipelinedRequestAfterABody() {
        let text = post("Content-Length: 2\r\n", body: "{}") + "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"
        let parts = parseAllWays(latin1(text))
        #expect(parts.count == 5)
        #expect(parts[2] == .end && parts[4] == .end)
    }

    @Test func incompleteBodyWaits() {
        let parts = parseAllWays(latin1(post("Content-Length: 5\r\n", body: "ab")))
        #expect(parts.count == 2)
        #expect(parts.last == .body(Array("ab".utf8)))
    }

    static let invalid: [(String, HTTPParserError)] = [
        ("Content-Length:\r\n", .invalidContentLength),
        ("Content-Length: \r\n", .invalidContentLength),
        ("Content-Length: -1\r\n", .invalidContentLength),
        ("Content-Length: +1\r\n", .invalidContentLength),
        ("Content-Length: 1 2\r\n", .invalidContentLength),
        ("Content-Length: 0x10\r\n", .invalidContentLength),
        ("Content-Length: 1e3\r\n", .invalidContentLength),
        ("Content-Length: 1.0\r\n", .invalidContentLength),
        ("Content-Length: \"2\"\r\n", .invalidContentLength),
        ("Content-Length: 99999999999999999999\r\n", .invalidContentLength),            // overflow
        ("Content-Length: 18446744073709551617\r\n", .invalidContentLength),
        ("Content-Length: 2, 2\r\n", .duplicateContentLength),                          // list
        ("Content-Length: 2,2\r\n", .duplicateContentLength),
        ("Content-Length: 2\r\nContent-Length: 2\r\n", .duplicateContentLength),        // D05
        ("Content-Length: 2\r\nContent-Length: 3\r\n", .duplicateContentLength),
        ("content-length: 2\r\nCONTENT-LENGTH: 2\r\n", .duplicateContentLength),
    ]

    @Test(arguments: invalid)
    func malformedOrRepeatedLengthsAre400(fields: String, error: HTTPParserError) {
        expectError(post(fields, body: "{}"), error)
        #expect(error.httpStatus == 400)
    }

    /// D10: refused from the head alone, before any body octet.
    @Test(arguments: ["65537", "104857600", "9223372036854775807"])
    func lengthOverTheLimitIs413(length: String) {
        expectError(post("Content-Length: \(length)\r\n"), .bodyTooLarge)
        #expect(HTTPParserError.bodyTooLarge.httpStatus == 413)
    }

    @Test func lengthAtTheLimitIsAccepted() throws {
        let limits = HTTPLimits(maxBodySize: 16)
        _ = try #require(expectRequest(post("Content-Length: 16\r\n", body: String(repeating: "x", count: 16)), limits: limits))
        expectError(post("Content-Length: 17\r\n"), .bodyTooLarge, limits: limits)
    }
}
