import Dispatch
import HTTPServer
import Testing

/// One hostile or ordinary request stream (probe categories A–I, README Tests), sent on a fresh
/// connection to a real server on 127.0.0.1.
struct Probe: Sendable, CustomTestStringConvertible {
    let id: String
    let bytes: [UInt8]
    /// Statuses of the successive responses.
    let statuses: [Int]
    /// Whether the server must close after the last response (else a follow-up must succeed).
    let closes: Bool
    var headResponses: Set<Int> = []
    var http10 = false
    var bodies: [Int: [UInt8]] = [:]
    var headers: [(index: Int, name: String, value: String?)] = []
    var limits = HTTPLimits()

    var testDescription: String { id }
}

func probe(_ id: String, _ text: String, _ statuses: [Int], close: Bool, head: Set<Int> = [], http10: Bool = false,
           bodies: [Int: String] = [:], headers: [(Int, String, String?)] = [], limits: HTTPLimits = HTTPLimits()) -> Probe {
    Probe(id: id, bytes: latin1(text), statuses: statuses, closes: close, headResponses: head, http10: http10,
          bodies: bodies.mapValues { latin1($0) }, headers: headers.map { (index: $0.0, name: $0.1, value: $0.2) },
          limits: limits)
}

/// Sends the probe, reads the expected responses, checks status, body, headers, hygiene and
/// close/open, then checks the server still answers a fresh connection.
func run(_ probe: Probe, sourceLocation: SourceLocation = #_sourceLocation) throws {
    try withTestServer(limits: probe.limits) { _, port in
        let client = try RawClient(port: port)
        // Send from another thread: a server that refuses early stops reading a large probe.
        let sent = DispatchSemaphore(value: 0)
        let bytes = probe.bytes
        DispatchQueue.global().async {
            client.send(bytes)
            sent.signal()
        }
        defer { _ = sent.wait(timeout: .now() + 10) }
        var responses: [ReceivedResponse] = []
        do {
            for index in probe.statuses.indices {
                responses.append(try client.readResponse(bodyless: probe.headResponses.contains(index)))
            }
        } catch {
            Issue.record("\(probe.id): after \(responses) got \(error)", sourceLocation: sourceLocation)
            return
        }
        #expect(responses.map(\.status) == probe.statuses, "\(probe.id)", sourceLocation: sourceLocation)
        for (index, body) in probe.bodies {
            #expect(responses[index].body == body, "\(probe.id) body \(index)", sourceLocation: sourceLocation)
        }
        for (index, name, value) in probe.headers {
            #expect(responses[index].header(name) == value, "\(probe.id) \(name)", sourceLocation: sourceLocation)
        }
        for index in probe.headResponses {
            #expect(responses[index].header("Content-Length") != nil, "HEAD has Content-Length", sourceLocation: sourceLocation)
        }
        if probe.closes {
            #expect(client.closesWithoutMoreData(), "\(probe.id): connection should close, nothing more",
                    sourceLocation: sourceLocation)
        } else {
            #expect(client.unread.isEmpty, "\(probe.id): unexpected extra bytes", sourceLocation: sourceLocation)
            client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            let followUp = try client.readResponse()
            #expect(followUp.status == 200, "\(probe.id): connection should stay open", sourceLocation: sourceLocation)
        }
        expectHygiene(responses, closed: probe.closes, http10: probe.http10, sourceLocation: sourceLocation)
        expectServerStillServes(port: port, sourceLocation: sourceLocation)
    }
}

private let get = "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"
private func post(_ fields: String, _ body: String = "", version: String = "HTTP/1.1") -> String {
    "POST /v1/echo \(version)\r\nHost: t\r\n\(fields)\r\n\(body)"
}
private func chunked(_ body: String, fields: String = "") -> String {
    post("Transfer-Encoding: chunked\r\n" + fields, body)
}

/// A. Baseline, keep-alive, pipelining, HEAD.
@Suite(.timeLimit(.minutes(5))) struct BaselineProbes {
    static let cases: [Probe] = [
        probe("A01-get", get, [200], close: false, bodies: [0: "ok\n"]),
        probe("A03-pipelined", get + get + "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", [200, 200, 200], close: true),
        probe("A04-http10-closes", "GET /healthz HTTP/1.0\r\n\r\n", [200], close: true, http10: true),
        probe("A05-http10-keep-alive", "GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", [200], close: false, http10: true,
              headers: [(0, "Connection", "keep-alive")]),
        probe("A06-connection-close", "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", [200], close: true),
        probe("A07-head", "HEAD /healthz HTTP/1.1\r\nHost: t\r\n\r\n" + get, [200, 200], close: false, head: [0],
              bodies: [1: "ok\n"], headers: [(0, "Content-Length", "3")]),
        probe("A08-post-echo", post("Content-Type: application/json\r\nContent-Length: 2\r\n", "{}"), [200], close: false,
              bodies: [0: "{}"]),
        probe("A09-chunked-echo", chunked("2\r\n{}\r\n0\r\n\r\n"), [200], close: false, bodies: [0: "{}"]),
        probe("A10-absolute-form", "GET http://t/healthz HTTP/1.1\r\nHost: t\r\n\r\n", [200], close: false),
        probe("A11-options-asterisk", "OPTIONS * HTTP/1.1\r\nHost: t\r\n\r\n", [204], close: false),
        probe("A12-not-found", "GET /nope HTTP/1.1\r\nHost: t\r\n\r\n", [404], close: false),
        probe("A13-method-not-allowed", "DELETE /healthz HTTP/1.1\r\nHost: t\r\n\r\n", [405], close: false,
              headers: [(0, "Allow", "GET, HEAD")]),
        probe("A14-pipelined-bodies", post("Content-Length: 2\r\n", "{}") + chunked("1\r\na\r\n0\r\n\r\n") + get,
              [200, 200, 200], close: false, bodies: [0: "{}", 1: "a", 2: "ok\n"]),
        probe("A15-leading-empty-line", "\r\n" + get, [200], close: false),
        probe("A16-query", "GET /healthz?x=1&y=2 HTTP/1.1\r\nHost: t\r\n\r\n", [200], close: false),
        probe("A17-head-not-found", "HEAD /nope HTTP/1.1\r\nHost: t\r\n\r\n", [404], close: false, head: [0]),
        probe("A18-http10-post", post("Content-Length: 2\r\n", "{}", version: "HTTP/1.0").replacingOccurrences(of: "Host: t\r\n", with: ""),
              [200], close: true, http10: true, bodies: [0: "{}"]),
        probe("A19-pipelined-with-close-in-the-middle", get + "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n" + get,
              [200, 200], close: true),
        // an h2c upgrade offer is ignored (RFC 9110 §7.8: a server may ignore Upgrade)
        probe("A20-h2c-upgrade-ignored", "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\n",
              [200], close: false, headers: [(0, "Upgrade", nil)]),
    ]

    @Test(arguments: cases)
    func check(_ probe: Probe) throws { try run(probe) }
}

/// B. Request-line, method, version, target.
@Suite(.timeLimit(.minutes(5))) struct RequestLineProbes {
    static let cases: [Probe] = [
        probe("B01-lowercase-method", "get /healthz HTTP/1.1\r\nHost: t\r\n\r\n", [501], close: true),
        probe("B02-trace", "TRACE /healthz HTTP/1.1\r\nHost: t\r\n\r\n", [501], close: true),
        probe("B03-connect", "CONNECT t:443 HTTP/1.1\r\nHost: t:443\r\n\r\n", [501], close: true),
        probe("B04-method-too-long", "GETTTTTTTTTTTTTTTTTTTTTTTTT /healthz HTTP/1.1\r\nHost: t\r\n\r\n", [501], close: true),
        probe("B05-double-space", "GET  /healthz HTTP/1.1\r\nHost: t\r\n\r\n", [400], close: true),
        probe("B06-tab-separator", "GET\t/healthz HTTP/1.1\r\nHost: t\r\n\r\n", [400], close: true),
        probe("B07-leading-space", " GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n", [400], close: true),
        probe("B08-http09", "GET /healthz\r\n\r\n", [400], close: true),
        probe("B09-http2-request-line", "GET /healthz HTTP/2.0\r\nHost: t\r\n\r\n", [505], close: true),
        probe("B10-h2-preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", [505], close: true),
        probe("B11-http3", "GET /healthz HTTP/3.0\r\nHost: t\r\n\r\n", [505], close: true),
        probe("B12-http09-version", "GET /healthz HTTP/0.9\r\nHost: t\r\n\r\n", [505], close: true),
        probe("B13-two-digit-minor", "GET /healthz HTTP/1.10\r\nHost: t\r\n\r\n", [400], close: true),
        probe("B14-lowercase-version", "GET /healthz http/1.1\r\nHost: t\r\n\r\n", [400], close: true),
        probe("B15-trailing-space", "GET /healthz HTTP/1.1 \r\nHost: t\r\n\r\n", [400], close: true),
        probe("B16-quote-in-target", "GET /a\"b HTTP/1.1\r\nHost: t\r\n\r\n", [400], close: true),
        probe("B17-fragment", "GET /healthz#x HTTP/1.1\r\nHost: t\r\n\r\n", [400], close: true),
        probe("B18-uri-too-long", "GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: t\r\n\r\n", [414], close: true),
        probe("B19-asterisk-with-get", "GET * HTTP/1.1\r\nHost: t\r\n\r\n", [400], close: true),
        probe("B20-bad-percent", "GET /%zz HTTP/1.1\r\nHost: t\r\n\r\n", [400], close: true),
        probe("B21-non-ascii-target", "GET /\u{e9} HTTP/1.1\r\nHost: t\r\n\r\n", [400], close: true),
        probe("B22-bare-lf", "GET /healthz HTTP/1.1\nHost: t\n\n", [400], close: true),
        probe("B23-bare-cr", "GET /healthz HTTP/1.1\rHost: t\r\n\r\n", [400], close: true),
        probe("B24-too-many-empty-lines", String(repeating: "\r\n", count: 5) + get, [400], close: true),
        probe("B25-userinfo", "GET http://u@t/healthz HTTP/1.1\r\nHost: t\r\n\r\n", [400], close: true),
        probe("B26-other-scheme", "GET ftp://t/healthz HTTP/1.1\r\nHost: t\r\n\r\n", [400], close: true),
        probe("B27-method-not-token", "G@T /healthz HTTP/1.1\r\nHost: t\r\n\r\n", [400], close: true),
        probe("B28-http12-is-11", "GET /healthz HTTP/1.2\r\nHost: t\r\n\r\n", [200], close: false),
        probe("B29-8k-target-accepted", "GET /healthz?" + String(repeating: "a", count: 8000) + " HTTP/1.1\r\nHost: t\r\n\r\n",
              [200], close: false),
        probe("B30-nul-in-target", "GET /a\u{0}b HTTP/1.1\r\nHost: t\r\n\r\n", [400], close: true),
    ]

    @Test(arguments: cases)
    func check(_ probe: Probe) throws { try run(probe) }
}

/// C. Header-field syntax, Host, limits.
@Suite(.timeLimit(.minutes(5))) struct HeaderProbes {
    static func fields(_ text: String) -> String { "GET /healthz HTTP/1.1\r\nHost: t\r\n\(text)\r\n" }

    static let cases: [Probe] = [
        probe("C01-missing-host", "GET /healthz HTTP/1.1\r\n\r\n", [400], close: true),
        probe("C02-duplicate-host", "GET /healthz HTTP/1.1\r\nHost: t\r\nHost: t\r\n\r\n", [400], close: true),
        probe("C03-host-with-space", "GET /healthz HTTP/1.1\r\nHost: a b\r\n\r\n", [400], close: true),
        probe("C04-host-with-userinfo", "GET /healthz HTTP/1.1\r\nHost: u@t\r\n\r\n", [400], close: true),
        probe("C05-obs-fold", fields("X-A: a\r\n b\r\n"), [400], close: true),
        probe("C06-space-before-colon", fields("X-A : a\r\n"), [400], close: true),
        probe("C07-leading-whitespace-line", "GET /healthz HTTP/1.1\r\n Host: t\r\n\r\n", [400], close: true),
        probe("C08-empty-name", fields(": a\r\n"), [400], close: true),
        probe("C09-name-not-token", fields("X(A): a\r\n"), [400], close: true),
        probe("C10-nul-in-value", fields("X-A: a\u{0}b\r\n"), [400], close: true),
        probe("C11-del-in-value", fields("X-A: a\u{7f}b\r\n"), [400], close: true),
        probe("C12-ctl-in-value", fields("X-A: a\u{1b}b\r\n"), [400], close: true),
        probe("C13-bare-cr-in-value", fields("X-A: a\rb\r\n"), [400], close: true),
        probe("C14-too-many-fields", fields((0..<200).map { "X-\($0): v\r\n" }.joined()), [431], close: true),
        probe("C15-field-line-too-long", fields("X-A: " + String(repeating: "v", count: 9000) + "\r\n"), [431], close: true),
        probe("C16-header-section-too-large", fields(String(repeating: "X-A: " + String(repeating: "v", count: 4000) + "\r\n", count: 5)),
              [431], close: true),
        probe("C17-bare-lf-in-fields", "GET /healthz HTTP/1.1\r\nHost: t\nX-A: a\r\n\r\n", [400], close: true),
        probe("C18-obs-text-accepted", fields("X-A: caf\u{e9}\r\n"), [200], close: false),
        probe("C19-http10-without-host", "GET /healthz HTTP/1.0\r\n\r\n", [200], close: true, http10: true),
        probe("C20-empty-host", "GET /healthz HTTP/1.1\r\nHost:\r\n\r\n", [400], close: true),
        probe("C20b-host-list", "GET /healthz HTTP/1.1\r\nHost: a, b\r\n\r\n", [400], close: true),
        probe("C20c-host-with-path", "GET /healthz HTTP/1.1\r\nHost: t/x\r\n\r\n", [400], close: true),
        probe("C21-whitespace-inside-values", fields("X-A: \t a \t b \t\r\n"), [200], close: false),
        probe("C22-no-colon", fields("X-A\r\n"), [400], close: true),
        probe("C23-absolute-form-authority-wins", "GET http://t/healthz HTTP/1.1\r\nHost: other\r\n\r\n", [200], close: false),
        probe("C24-host-bad-port", "GET /healthz HTTP/1.1\r\nHost: t:8x\r\n\r\n", [400], close: true),
        probe("C25-non-ascii-name", fields("X-\u{e9}: v\r\n"), [400], close: true),
        probe("C27-head-refused-without-body", "HEAD /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", [400], close: true, head: [0]),
        probe("C26-100-fields-accepted", fields((0..<99).map { "X-\($0): v\r\n" }.joined()), [200], close: false),
    ]

    @Test(arguments: cases)
    func check(_ probe: Probe) throws { try run(probe) }
}

/// D. Content-Length framing.
@Suite(.timeLimit(.minutes(5))) struct ContentLengthProbes {
    static let cases: [Probe] = [
        probe("D01-exact-body", post("Content-Length: 2\r\n", "{}"), [200], close: false, bodies: [0: "{}"]),
        probe("D02-body-on-get", "GET /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc", [200], close: false),
        probe("D03-zero-length", post("Content-Length: 0\r\n"), [200], close: false, bodies: [0: ""]),
        probe("D04-leading-zeros", post("Content-Length: 002\r\n", "{}"), [200], close: false, bodies: [0: "{}"]),
        probe("D05-dup-cl-same", post("Content-Length: 2\r\nContent-Length: 2\r\n", "{}"), [400], close: true),
        probe("D06-dup-cl-different", post("Content-Length: 2\r\nContent-Length: 3\r\n", "{}"), [400], close: true),
        probe("D07-cl-list", post("Content-Length: 2, 2\r\n", "{}"), [400], close: true),
        probe("D08-negative", post("Content-Length: -2\r\n", "{}"), [400], close: true),
        probe("D09-plus-sign", post("Content-Length: +2\r\n", "{}"), [400], close: true),
        probe("D10-cl-over-limit", post("Content-Length: 104857600\r\n"), [413], close: true),
        probe("D11-hex", post("Content-Length: 0x2\r\n", "{}"), [400], close: true),
        probe("D12-empty", post("Content-Length:\r\n", "{}"), [400], close: true),
        probe("D13-overflow", post("Content-Length: 99999999999999999999999\r\n", "{}"), [400], close: true),
        probe("D14-space-inside", post("Content-Length: 1 1\r\n", "{}"), [400], close: true),
        probe("D15-pipelined-after-body", post("Content-Length: 2\r\n", "{}") + get, [200, 200], close: false),
        probe("D16-trailing-whitespace-trimmed", post("Content-Length: 2 \t\r\n", "{}"), [200], close: false),
        probe("D17-no-length-means-no-body", post("") + get, [200, 200], close: false, bodies: [0: ""]),
        probe("D18-body-at-limit", post("Content-Length: 65536\r\n", String(repeating: "a", count: 65536)), [200], close: false),
        probe("D19-body-one-over-limit", post("Content-Length: 65537\r\n"), [413], close: true),
    ]

    @Test(arguments: cases)
    func check(_ probe: Probe) throws { try run(probe) }
}

/// E. Transfer-Encoding and CL/TE smuggling.
@Suite(.timeLimit(.minutes(5))) struct TransferEncodingProbes {
    static let body = "2\r\n{}\r\n0\r\n\r\n"

    static let cases: [Probe] = [
        probe("E01-chunked", chunked(body), [200], close: false, bodies: [0: "{}"]),
        probe("E02-cl-and-te", post("Content-Length: 6\r\nTransfer-Encoding: chunked\r\n", "0\r\n\r\nXGET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"),
              [400], close: true),
        probe("E03-te-and-cl", post("Transfer-Encoding: chunked\r\nContent-Length: 6\r\n", body), [400], close: true),
        probe("E04-te-twice", post("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", body), [400], close: true),
        probe("E05a-gzip-chunked", post("Transfer-Encoding: gzip, chunked\r\n", body), [501], close: true),
        probe("E05b-xchunked", post("Transfer-Encoding: xchunked\r\n", body), [501], close: true),
        probe("E05c-identity", post("Transfer-Encoding: identity\r\n", body), [501], close: true),
        probe("E06-chunked-not-last", post("Transfer-Encoding: chunked, gzip\r\n", body), [400], close: true),
        probe("E07-chunked-chunked", post("Transfer-Encoding: chunked, chunked\r\n", body), [400], close: true),
        probe("E08-te-in-http10", post("Transfer-Encoding: chunked\r\n", body, version: "HTTP/1.0"), [400], close: true, http10: true),
        probe("E09-chunked-with-parameter", post("Transfer-Encoding: chunked;q=1\r\n", body), [501], close: true),
        probe("E10-space-before-colon", post("Transfer-Encoding : chunked\r\n", body), [400], close: true),
        probe("E11-vertical-tab", post("Transfer-Encoding:\u{0b}chunked\r\n", body), [400], close: true),
        probe("E12-lookalike-name", post("Transfer_Encoding: chunked\r\n", body), [200, 400], close: true, bodies: [0: ""]),
        probe("E13-uppercase", post("Transfer-Encoding: CHUNKED\r\n", body), [200], close: false, bodies: [0: "{}"]),
        probe("E14-codings-across-lines", post("Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n", body), [501], close: true),
        probe("E15-folded", post("Transfer-Encoding: gzip,\r\n chunked\r\n", body), [400], close: true),
        probe("E16-empty", post("Transfer-Encoding:\r\n", body), [400], close: true),
        probe("E17-ows-and-empty-elements", post("Transfer-Encoding: , chunked \t\r\n", body), [200], close: false),
        probe("E18-cl-te-smuggle-after-good-request", get + post("Content-Length: 4\r\nTransfer-Encoding: chunked\r\n", body),
              [200, 400], close: true),
    ]

    @Test(arguments: cases)
    func check(_ probe: Probe) throws { try run(probe) }
}

/// F. Chunked body syntax.
@Suite(.timeLimit(.minutes(5))) struct ChunkedProbes {
    static let cases: [Probe] = [
        probe("F01-extensions", chunked("2;a=b;c=\"d e\"\r\n{}\r\n0;last\r\n\r\n"), [200], close: false, bodies: [0: "{}"]),
        probe("F02-hex-case", chunked("a\r\n0123456789\r\nA\r\n0123456789\r\n0\r\n\r\n"), [200], close: false),
        probe("F03-leading-zeros", chunked("0002\r\n{}\r\n000\r\n\r\n"), [200], close: false, bodies: [0: "{}"]),
        probe("F04-0x-prefix", chunked("0x2\r\n{}\r\n0\r\n\r\n"), [400], close: true),
        probe("F05-negative", chunked("-2\r\n{}\r\n0\r\n\r\n"), [400], close: true),
        probe("F06-data-longer-than-size", chunked("2\r\n{}XX\r\n0\r\n\r\n"), [400], close: true),
        probe("F07-no-crlf-after-data", chunked("2\r\n{}0\r\n\r\n"), [400], close: true),
        probe("F08-bare-lf-after-size", chunked("2\n{}\r\n0\r\n\r\n"), [400], close: true),
        probe("F09-empty-extension", chunked("2;\r\n{}\r\n0\r\n\r\n"), [400], close: true),
        probe("F10-extension-too-long", chunked("2;" + String(repeating: "e", count: 1100) + "\r\n{}\r\n0\r\n\r\n"), [400], close: true),
        probe("F11-trailers-ignored", chunked("2\r\n{}\r\n0\r\nContent-Length: 50\r\nX-T: v\r\n\r\n"), [200], close: false,
              bodies: [0: "{}"]),
        probe("F12-body-over-limit", chunked(String(repeating: "FFFF\r\n" + String(repeating: "a", count: 0xFFFF) + "\r\n", count: 20)
                                             + "0\r\n\r\n"), [413], close: true),
        probe("F13-size-overflow", chunked("FFFFFFFFFFFFFFFFFFFFFF\r\n"), [413], close: true),
        probe("F14-seventeen-digits", chunked("00000000000000002\r\n{}\r\n0\r\n\r\n"), [400], close: true),
        probe("F15-trailer-obs-fold", chunked("0\r\nX-T: a\r\n b\r\n\r\n"), [400], close: true),
        probe("F16-trailer-too-large", chunked("0\r\nX-T: " + String(repeating: "v", count: 5000) + "\r\n\r\n"), [431], close: true),
        probe("F17-quoted-extension-escapes", chunked("2;a=\"q\\\"x\"\r\n{}\r\n0\r\n\r\n"), [200], close: false),
        probe("F18-space-after-size", chunked("2 \r\n{}\r\n0\r\n\r\n"), [400], close: true),
        probe("F19-bare-cr-in-size-line", chunked("2\r{}\r\n0\r\n\r\n"), [400], close: true),
        probe("F20-pipelined-after-chunked", chunked("2\r\n{}\r\n0\r\n\r\n") + get, [200, 200], close: false),
        probe("F21-many-small-chunks", chunked(String(repeating: "1\r\na\r\n", count: 500) + "0\r\n\r\n"), [200], close: false,
              bodies: [0: String(repeating: "a", count: 500)]),
        probe("F22-trailer-space-before-colon", chunked("0\r\nX-T : v\r\n\r\n"), [400], close: true),
        probe("F23-missing-final-crlf-then-request", chunked("0\r\n") + get, [400], close: true),
    ]

    @Test(arguments: cases)
    func check(_ probe: Probe) throws { try run(probe) }
}

/// H. Garbage (idle and incomplete connections are in TimingProbeTests).
@Suite(.timeLimit(.minutes(5))) struct GarbageProbes {
    static let cases: [Probe] = [
        probe("H01-tls-client-hello", "\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}\u{00}\u{01}\u{fc}\u{03}\u{03}" + String(repeating: "\u{0}", count: 64),
              [400], close: true),
        probe("H04-binary", (0..<256).map { String(UnicodeScalar(UInt8($0))) }.joined(), [400], close: true),
        probe("H05-only-empty-lines", String(repeating: "\r\n", count: 10), [400], close: true),
        probe("H06-json-instead-of-http", "{\"version\":1}\r\n\r\n", [400], close: true),
        probe("H07-ssh-banner", "SSH-2.0-OpenSSH_9.0\r\n", [501], close: true),   // a token longer than any method
        probe("H08-good-request-then-garbage", get + "\u{0}\u{1}\u{2}", [200, 400], close: true),
    ]

    @Test(arguments: cases)
    func check(_ probe: Probe) throws { try run(probe) }
}
