import Foundation
import Glibc
import HTTPServer
import Locking
import TestSupport
import Testing

/// The router the live tests run against: `GET /healthz`, `POST /v1/echo`, plus `GET /large`
/// (a 256 KiB body, for slow readers) and `POST /slow` (answers from another thread later).
/// `handled` counts the echo and slow requests that reached the router.
func testRouter(slowDelay: Duration = .milliseconds(500), handled: LockedValueBox<Int>? = nil) -> Router {
    var router = Router()
    router.get("/healthz") { _ in
        HTTPResponse(status: 200, contentType: "text/plain", body: "ok\n")
    }
    router.post("/v1/echo") { request in
        handled?.withLock { $0 += 1 }
        return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: request.body)
    }
    let large = [UInt8](repeating: UInt8(ascii: "x"), count: 256 * 1024)
    router.get("/large") { _ in HTTPResponse(status: 200, body: large) }
    router.add("POST", "/slow") { request, respond in
        handled?.withLock { $0 += 1 }
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(slowDelay.components.seconds * 1_000_000_000
                                                                             + slowDelay.components.attoseconds / 1_000_000_000))) {
            respond(HTTPResponse(status: 200, body: request.body))
        }
    }
    return router
}

/// A real server on 127.0.0.1 and a free port, stopped when `body` returns.
func withTestServer<T>(limits: HTTPLimits = HTTPLimits(), timeouts: HTTPTimeouts = HTTPTimeouts(timerResolution: .milliseconds(20)),
                       maxConnections: Int = 1000, maxConnectionsPerAddress: Int? = nil, idleReserve: Int? = nil,
                       loopCount: Int = 2, maxBufferedRequestBytes: Int = HTTPServerConfiguration.defaultMaxBufferedRequestBytes,
                       trustedProxies: TrustedProxies = .none, proxyProtocol: Bool = false,
                       responder: (any HTTPResponder)? = nil,
                       onResponse: (@Sendable (HTTPRequest, HTTPResponse, UInt64) -> Void)? = nil,
                       _ body: (HTTPServer, Int) throws -> T) throws -> T {
    // Every test client comes from 127.0.0.1: unless a test says otherwise, it may use the whole table.
    let configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, limits: limits, timeouts: timeouts,
                                                loopCount: loopCount, maxConnections: maxConnections,
                                                maxConnectionsPerAddress: maxConnectionsPerAddress ?? maxConnections,
                                                idleReserve: idleReserve, maxBufferedRequestBytes: maxBufferedRequestBytes,
                                                trustedProxies: trustedProxies, proxyProtocol: proxyProtocol,
                                                onResponse: onResponse)
    let server = HTTPServer(configuration: configuration, responder: responder ?? testRouter())
    let port = try server.start()
    defer {
        server.shutdown()
        server.waitUntilStopped()
    }
    return try body(server, port)
}

/// One parsed response as received.
struct ReceivedResponse: CustomStringConvertible {
    var status: Int
    var version: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    var raw: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    func headers(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    var description: String { "\(status) \(headers.map { "\($0.name): \($0.value)" }) +\(body.count)B" }
}

/// A blocking loopback client that sends raw bytes and reads raw responses.
final class RawClient: @unchecked Sendable {
    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var sawEOF = false
    private(set) var sawReset = false

    /// Connects to 127.0.0.1:`port`, from `source` when given (any 127.0.0.0/8 address on Linux).
    init(port: Int, source: String? = nil, receiveTimeout: Duration = .seconds(5)) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            // No close before throwing: fd is set, so deinit runs and closes it (a second close
            // could close a descriptor another test has opened since).
            guard bound == 0 else { throw ClientError.connect(errno) }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw ClientError.connect(errno) }
        setReceiveTimeout(receiveTimeout)
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    enum ClientError: Error { case connect(Int32), timeout, closed, malformed(String) }

    deinit { close(fd) }

    func setReceiveTimeout(_ duration: Duration) {
        var tv = timeval(tv_sec: Int(duration.components.seconds),
                         tv_usec: Int(duration.components.attoseconds / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends everything (errors ignored: the server may have closed on purpose).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    func send(_ text: String) { send(latin1(text)) }

    /// Reads more bytes; false on EOF, reset or timeout.
    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &chunk, chunk.count, 0)
        if n > 0 {
            buffer += chunk[0..<n]
            return true
        }
        if n == 0 { sawEOF = true }
        if n < 0 && errno == ECONNRESET { sawReset = true }
        return false
    }

    /// Reads one response; `bodyless` for HEAD requests.
    func readResponse(bodyless: Bool = false) throws -> ReceivedResponse {
        while true {
            if let end = findHeadEnd() {
                let head = String(decoding: buffer[0..<end], as: UTF8.self)
                var lines = head.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst()
                let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
                guard parts.count >= 2, let status = Int(parts[1]) else { throw ClientError.malformed(statusLine) }
                let headers = try lines.map { line -> (String, String) in
                    guard let colon = line.firstIndex(of: ":") else { throw ClientError.malformed(line) }
                    return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
                }
                var response = ReceivedResponse(status: status, version: String(parts[0]),
                                                headers: headers.map { (name: $0.0, value: $0.1) }, body: [], raw: [])
                var length = 0
                if !(bodyless || status < 200 || status == 204 || status == 304) {
                    guard let declared = response.header("Content-Length").flatMap(Int.init) else {
                        throw ClientError.malformed("no Content-Length: \(head)")
                    }
                    length = declared
                }
                while buffer.count < end + 4 + length {
                    guard fill() else { throw ClientError.closed }
                }
                response.body = Array(buffer[(end + 4)..<(end + 4 + length)])
                response.raw = Array(buffer[0..<(end + 4 + length)])
                buffer.removeFirst(end + 4 + length)
                return response
            }
            guard fill() else { throw sawEOF || sawReset ? ClientError.closed : ClientError.timeout }
        }
    }

    private func findHeadEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for i in 0...(buffer.count - 4) where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
            return i
        }
        return nil
    }

    /// True when the server closes (EOF or reset) within `within` with no further bytes.
    func closesWithoutMoreData(within: Duration = .seconds(2)) -> Bool {
        setReceiveTimeout(within)
        let before = buffer.count
        while fill() {}
        return (sawEOF || sawReset) && buffer.count == before
    }

    /// Bytes received but not consumed by `readResponse`.
    var unread: [UInt8] { buffer }
}

/// GET /healthz on a fresh connection answers 200: the server is still serving.
func expectServerStillServes(port: Int, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        let client = try RawClient(port: port)
        client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 200, sourceLocation: sourceLocation)
    } catch {
        Issue.record("server no longer serves: \(error)", sourceLocation: sourceLocation)
    }
}

/// Response hygiene (I07): Date present; Content-Length on every response that may have a body
/// and never on 1xx/204/304; no Transfer-Encoding; Connection: close iff the connection closes;
/// 405 has Allow; HTTP/1.1 status lines; no 1xx to HTTP/1.0 clients.
func expectHygiene(_ responses: [ReceivedResponse], closed: Bool, http10: Bool = false,
                   sourceLocation: SourceLocation = #_sourceLocation) {
    for (index, response) in responses.enumerated() {
        let last = index == responses.count - 1
        #expect(response.version == "HTTP/1.1", sourceLocation: sourceLocation)
        #expect(response.headers("Date").count == 1, "Date in \(response)", sourceLocation: sourceLocation)
        #expect(response.header("Transfer-Encoding") == nil, sourceLocation: sourceLocation)
        let lengths = response.headers("Content-Length")
        if response.status < 200 || response.status == 204 || response.status == 304 {
            #expect(lengths.isEmpty, "Content-Length on \(response.status)", sourceLocation: sourceLocation)
        } else {
            #expect(lengths.count == 1, "one Content-Length in \(response)", sourceLocation: sourceLocation)
        }
        if response.status >= 200 {
            let saysClose = response.header("Connection")?.lowercased() == "close"
            #expect(saysClose == (closed && last), "Connection: close iff closing, in \(response)",
                    sourceLocation: sourceLocation)
        }
        if response.status == 405 {
            #expect(response.header("Allow") != nil, sourceLocation: sourceLocation)
        }
        if http10 {
            #expect(response.status >= 200, "1xx to HTTP/1.0", sourceLocation: sourceLocation)
        }
    }
}

