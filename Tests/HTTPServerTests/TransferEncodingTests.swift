import HTTPServer
import Testing

/// RFC 9112 §6.1: Transfer-Encoding in requests, judged strictly.
@Suite struct TransferEncodingTests {
    func post(_ fields: String, body: String = "2\r\n{}\r\n0\r\n\r\n", version: String = "HTTP/1.1") -> String {
        request(fields, method: "POST", target: "/v1/echo", version: version, body: body)
    }

    /// After splitting on commas, trimming OWS, lowercasing, dropping empty elements and combining
    /// repeated lines, the codings must be exactly ["chunked"].
    @Test(arguments: ["Transfer-Encoding: chunked\r\n", "Transfer-Encoding: Chunked\r\n", "Transfer-Encoding: CHUNKED\r\n",
                      "Transfer-Encoding:  \t chunked \t \r\n", "Transfer-Encoding: chunked,\r\n", "Transfer-Encoding: , chunked ,,\r\n",
                      "Transfer-Encoding:\r\nTransfer-Encoding: chunked\r\n", "transfer-encoding: chunked\r\n"])
    func exactlyChunkedIsAccepted(fields: String) throws {
        let (head, body) = try #require(expectRequest(post(fields)))
        #expect(head.framing == .chunked)
        #expect(body == Array("{}".utf8))
    }

    static let refused: [(String, HTTPParserError)] = [
        // unknown codings: 501 (SHOULD), connection closed
        ("Transfer-Encoding: gzip, chunked\r\n", .unsupportedTransferCoding),                 // E05
        ("Transfer-Encoding: xchunked\r\n", .unsupportedTransferCoding),
        ("Transfer-Encoding: identity\r\n", .unsupportedTransferCoding),
        ("Transfer-Encoding: gzip\r\n", .unsupportedTransferCoding),
        ("Transfer-Encoding: chunked;q=1\r\n", .unsupportedTransferCoding),
        ("Transfer-Encoding: chunked ; x=y\r\n", .unsupportedTransferCoding),
        ("Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n", .unsupportedTransferCoding),
        ("Transfer-Encoding: chunkedx\r\n", .unsupportedTransferCoding),
        ("Transfer-Encoding: chunk\r\n", .unsupportedTransferCoding),
        // chunked not last, or twice: 400 (MUST)
        ("Transfer-Encoding: chunked, gzip\r\n", .invalidTransferEncoding),
        ("Transfer-Encoding: chunked, chunked\r\n", .invalidTransferEncoding),
        ("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", .invalidTransferEncoding),
        ("Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n", .invalidTransferEncoding),
        // malformed lists
        ("Transfer-Encoding:\r\n", .invalidTransferEncoding),
        ("Transfer-Encoding: ,\r\n", .invalidTransferEncoding),
        ("Transfer-Encoding: \"chunked\"\r\n", .invalidTransferEncoding),
        ("Transfer-Encoding: chunked\"\r\n", .invalidTransferEncoding),
        ("Transfer-Encoding: chunked x\r\n", .invalidTransferEncoding),
        // CL + TE in either order: 400 and close (E02)
        ("Content-Length: 6\r\nTransfer-Encoding: chunked\r\n", .contentLengthWithTransferEncoding),
        ("Transfer-Encoding: chunked\r\nContent-Length: 6\r\n", .contentLengthWithTransferEncoding),
        ("Transfer-Encoding: gzip\r\nContent-Length: 6\r\n", .contentLengthWithTransferEncoding),
        // obfuscated names and values
        ("Transfer-Encoding : chunked\r\n", .whitespaceBeforeColon),
        ("Transfer-Encoding:\u{0b}chunked\r\n", .invalidFieldValue),
        ("Transfer-Encoding:\u{0c}chunked\r\n", .invalidFieldValue),
        ("Transfer-Encoding: chunked\r\n\tgzip\r\n", .obsoleteLineFolding),
        ("X: y\r\n Transfer-Encoding: chunked\r\n", .obsoleteLineFolding),
        ("Transfer-Encoding: chunked\rX: y\r\n", .bareCR),
        ("Transfer-Encoding: chunked\nX: y\r\n", .bareLF),
    ]

    @Test(arguments: refused)
    func everythingElseIsRefused(fields: String, error: HTTPParserError) {
        expectError(post(fields), error)
    }

    /// RFC 9112 §6.1: Transfer-Encoding in HTTP/1.0 MUST be treated as faulty framing.
    @Test func transferEncodingInHTTP10IsRefused() {
        expectError(post("Transfer-Encoding: chunked\r\n", version: "HTTP/1.0"), .transferEncodingInHTTP10)
        expectError(post("Transfer-Encoding: gzip\r\n", version: "HTTP/1.0"), .transferEncodingInHTTP10)
    }

    /// A name that is not exactly Transfer-Encoding frames nothing: the body is empty and the
    /// chunk bytes are read as (and refused as) the next request — never as a body.
    @Test func lookalikeNamesAreNotTransferEncoding() {
        let parts = parseAllWays(latin1(post("Transfer_Encoding: chunked\r\n")))
        guard case .head(let head)? = parts.first else { Issue.record("\(parts)"); return }
        #expect(head.framing == .none)
        #expect(parts[1] == .end)
        #expect(parts.last == .error(.invalidRequestLine))
    }

    @Test func statuses() {
        #expect(HTTPParserError.unsupportedTransferCoding.httpStatus == 501)
        #expect(HTTPParserError.invalidTransferEncoding.httpStatus == 400)
        #expect(HTTPParserError.contentLengthWithTransferEncoding.httpStatus == 400)
        #expect(HTTPParserError.transferEncodingInHTTP10.httpStatus == 400)
    }
}
