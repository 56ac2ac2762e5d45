import HTTPServer
import Testing

/// RFC 9112 §7.1 chunked coding: sizes, extensions, data framing, trailers, limits.
@Suite struct ChunkedBodyTests {
    func chunked(_ body: String, fields: String = "") -> String {
        request("Transfer-Encoding: chunked\r\n" + fields, method: "POST", target: "/v1/echo", body: body)
    }

    static let valid: [(String, String)] = [
        ("2\r\n{}\r\n0\r\n\r\n", "{}"),
        ("1\r\na\r\n1\r\nb\r\n1\r\nc\r\n0\r\n\r\n", "abc"),
        ("A\r\n0123456789\r\n0\r\n\r\n", "0123456789"),
        ("a\r\n0123456789\r\n0\r\n\r\n", "0123456789"),
        ("0002\r\nab\r\n000\r\n\r\n", "ab"),
        ("2;name\r\nab\r\n0\r\n\r\n", "ab"),
        ("2;name=value\r\nab\r\n0;last\r\n\r\n", "ab"),
        ("2;a=b;c=d;e\r\nab\r\n0\r\n\r\n", "ab"),
        ("2;a=\"quoted \\\" value; with = signs\"\r\nab\r\n0\r\n\r\n", "ab"),
        ("2 ;a\r\nab\r\n0\r\n\r\n", "ab"),                       // BWS before ";"
        ("2; a = b \r\nab\r\n0\r\n\r\n", "ab"),                   // BWS around "=" and after the value
        ("2\r\nab\r\n0\r\nX-Trailer: v\r\nContent-Length: 99\r\n\r\n", "ab"),
        ("2\r\n\r\n\r\n0\r\n\r\n", "\r\n"),                       // data may contain CRLF
        ("0\r\n\r\n", ""),
    ]

    @Test(arguments: valid)
    func validBodies(body: String, decoded: String) throws {
        let (head, received) = try #require(expectRequest(chunked(body)))
        #expect(head.framing == .chunked)
        #expect(received == latin1(decoded))
        // trailers are ignored: they never join the headers
        #expect(head.headers.first("x-trailer") == nil)
        #expect(head.headers.first("content-length") == nil)
    }

    static let invalid: [(String, HTTPParserError)] = [
        ("0x2\r\nab\r\n0\r\n\r\n", .invalidChunkSize),
        ("-2\r\nab\r\n0\r\n\r\n", .invalidChunkSize),
        ("+2\r\nab\r\n0\r\n\r\n", .invalidChunkSize),
        (" 2\r\nab\r\n0\r\n\r\n", .invalidChunkSize),
        ("2 \r\nab\r\n0\r\n\r\n", .invalidChunkSize),             // whitespace not followed by ";"
        ("_2\r\nab\r\n0\r\n\r\n", .invalidChunkSize),
        ("2_0\r\nab\r\n0\r\n\r\n", .invalidChunkSize),
        ("\r\nab\r\n0\r\n\r\n", .invalidChunkSize),                // empty size
        ("g\r\n", .invalidChunkSize),
        (";a\r\nab\r\n0\r\n\r\n", .invalidChunkSize),
        ("00000000000000001\r\na\r\n0\r\n\r\n", .invalidChunkSize), // 17 digits
        ("2\nab\r\n0\r\n\r\n", .bareLF),
        ("2\rab\r\n0\r\n\r\n", .bareCR),
        ("2\r\n{}XX\r\n0\r\n\r\n", .invalidChunkFraming),           // F06: data longer than size
        ("5\r\nab\r\n0\r\n\r\n", .invalidChunkSize),                // data shorter than size: "ab\r\n0" is the data
        ("2\r\nab0\r\n\r\n", .invalidChunkFraming),                 // no CRLF after data
        ("2\r\nab\n0\r\n\r\n", .invalidChunkFraming),
        ("2\r\nab\r0\r\n\r\n", .invalidChunkFraming),
        ("2;\r\nab\r\n0\r\n\r\n", .invalidChunkExtension),
        ("2;=b\r\nab\r\n0\r\n\r\n", .invalidChunkExtension),
        ("2;a=\r\nab\r\n0\r\n\r\n", .invalidChunkExtension),
        ("2;a=b c\r\nab\r\n0\r\n\r\n", .invalidChunkExtension),
        ("2;a b\r\nab\r\n0\r\n\r\n", .invalidChunkExtension),
        ("2;a=\"unterminated\r\nab\r\n0\r\n\r\n", .invalidChunkExtension),
        ("2;a=\"x\"y\r\nab\r\n0\r\n\r\n", .invalidChunkExtension),
        ("2;a\u{00}\r\nab\r\n0\r\n\r\n", .invalidChunkExtension),
        ("2;a=\"\u{7f}\"\r\nab\r\n0\r\n\r\n", .invalidChunkExtension),
        ("2;a\nab\r\n0\r\n\r\n", .bareLF),
        ("2\r\nab\r\n0\r\nX-T: v\r\n X-U: w\r\n\r\n", .obsoleteLineFolding),
        ("2\r\nab\r\n0\r\nX-T : v\r\n\r\n", .whitespaceBeforeColon),
        ("2\r\nab\r\n0\r\n: v\r\n\r\n", .invalidFieldName),
        ("2\r\nab\r\n0\r\nX-T: \u{01}\r\n\r\n", .invalidFieldValue),
        ("2\r\nab\r\n0\r\nX-T: v\n\r\n", .bareLF),
        ("2\r\nab\r\n0\r\nX-T: v\r\n\n", .bareLF),
        ("2\r\nab\r\n0\r\n\rX", .bareCR),
        ("2\r\nab\r\n0\r\nX-T\r\n\r\n", .invalidFieldName),
    ]

    @Test(arguments: invalid)
    func malformedBodiesAre400(body: String, error: HTTPParserError) {
        expectError(chunked(body), error)
        #expect(error.httpStatus == 400)
    }

    @Test func missingLastChunkWaits() {
        let parts = parseAllWays(latin1(chunked("2\r\nab\r\n")))
        #expect(parts.count == 2)
        #expect(parts.last == .body(Array("ab".utf8)))
    }

    /// F12: the decoded size counts, refused as soon as a chunk-size would pass the limit.
    @Test func decodedBodyLimitIs413() throws {
        let limits = HTTPLimits(maxBodySize: 10)
        _ = try #require(expectRequest(chunked("5\r\n01234\r\n5\r\n56789\r\n0\r\n\r\n"), limits: limits))
        expectError(chunked("5\r\n01234\r\n6\r\n"), .bodyTooLarge, limits: limits)
        expectError(chunked("B\r\n"), .bodyTooLarge, limits: limits)
        expectError(chunked("FFFFFFFFFFFFFFFFFFFF\r\n"), .bodyTooLarge)
        expectError(chunked("10001\r\n"), .bodyTooLarge)
    }

    @Test func defaultDecodedLimitIs64KiB() {
        let chunk = "FFFF\r\n" + String(repeating: "a", count: 0xFFFF) + "\r\n"
        expectError(chunked(chunk + "2\r\n"), .bodyTooLarge)
        let atLimit = latin1(chunked(chunk + "1\r\na\r\n0\r\n\r\n"))
        #expect(parse(atLimit, chunks: [0..<atLimit.count], limits: HTTPLimits()).last == .end)
    }

    @Test func extensionLengthIsLimitedPerBody() throws {
        let limits = HTTPLimits(maxChunkExtensionSize: 20)
        // ";" and the name count: 20 octets fit
        _ = try #require(expectRequest(chunked("1;" + String(repeating: "e", count: 19) + "\r\na\r\n0\r\n\r\n"), limits: limits))
        expectError(chunked("1;" + String(repeating: "e", count: 20) + "\r\na\r\n0\r\n\r\n"), .chunkExtensionTooLong, limits: limits)
        // the budget is for the whole body, not per chunk
        expectError(chunked("1;eeeeeeeeee\r\na\r\n1;eeeeeeeeee\r\nb\r\n0\r\n\r\n"), .chunkExtensionTooLong, limits: limits)
        expectError(chunked("1" + String(repeating: " ", count: 30) + ";e\r\n"), .chunkExtensionTooLong, limits: limits)
        expectError(chunked("1;e=\"" + String(repeating: "q", count: 2000)), .chunkExtensionTooLong)
    }

    @Test func trailerSectionIsLimited() throws {
        let limits = HTTPLimits(maxTrailerSectionSize: 64)
        _ = try #require(expectRequest(chunked("0\r\nX-T: " + String(repeating: "v", count: 53) + "\r\n\r\n"), limits: limits))
        expectError(chunked("0\r\nX-T: " + String(repeating: "v", count: 60) + "\r\n\r\n"), .trailerSectionTooLarge, limits: limits)
        expectError(chunked("0\r\n" + String(repeating: "a:b\r\n", count: 101) + "\r\n"), .tooManyFields)
        expectError(chunked("0\r\nX: " + String(repeating: "v", count: 100)), .fieldLineTooLong,
                    limits: HTTPLimits(maxFieldLineLength: 50))
        #expect(HTTPParserError.trailerSectionTooLarge.httpStatus == 431)
    }

    @Test func pipelinedRequestAfterAChunkedBody() {
        let parts = parseAllWays(latin1(chunked("2\r\n{}\r\n0\r\n\r\n") + request()))
        #expect(parts.count == 5)
        #expect(parts[2] == .end)
        #expect(parts[4] == .end)
    }
}
