@testable import CLI
import Foundation
import Glibc
import Testing

@Suite struct ServerURLTests {
    @Test(arguments: [
        ("http://127.0.0.1:8080", "127.0.0.1", 8080, "", "127.0.0.1:8080"),
        ("http://[::1]:8081/", "::1", 8081, "", "[::1]:8081"),
        ("HTTP://[::1]/badges/", "::1", 80, "/badges", "[::1]"),
        ("https://Badges.Example", "Badges.Example", 443, "", "badges.example"),
        ("http://localhost:1/a/b", "localhost", 1, "/a/b", "localhost:1"),
    ])
    func reads(_ text: String, _ host: String, _ port: Int, _ base: String, _ authority: String) throws {
        let url = try ServerURL(parsing: text)
        #expect(url.host == host && url.port == port && url.basePath == base && url.authority == authority)
        #expect(url.target("/rpc") == base + "/rpc")
    }

    @Test(arguments: ["http://::1:8080", "http://[::1", "http://[nothost]:1", "http://[::1]x", "ftp://h", "127.0.0.1:8080",
                      "http://:80", "http://h:0", "http://h:65536", "http://h:x", "http://u@h", "http://h/?q", "http://h/#f"])
    func refuses(_ text: String) {
        #expect(throws: UsageError.self) { try ServerURL(parsing: text) }
    }
}

@Suite struct ResponseParserTests {
    func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    @Test func contentLengthDelimits() {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4\r\n\r\n"
        #expect(ResponseParser.parse(bytes(head + "ab"), complete: false) == .needMore)
        #expect(ResponseParser.parse(bytes(head + "abcdXX"), complete: false)
                == .done(.init(status: 200, headers: ["content-type": "application/json", "content-length": "4"], body: bytes("abcd"))))
        #expect(ResponseParser.parse(bytes(head + "ab"), complete: true) == .invalid("body shorter than its Content-Length"))
    }

    @Test func theCloseDelimitsABodyWithoutLength() {
        let text = "HTTP/1.0 400 Bad Request\r\n\r\n{\"x\":1}"
        #expect(ResponseParser.parse(bytes(text), complete: false) == .needMore)
        #expect(ResponseParser.parse(bytes(text), complete: true) == .done(.init(status: 400, headers: [:], body: bytes("{\"x\":1}"))))
    }

    @Test(arguments: ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", "SIP/2.0 200 OK\r\n\r\n", "HTTP/1.1 abc\r\n\r\n",
                      "HTTP/1.1 200 OK\r\nno colon\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n"])
    func refuses(_ text: String) {
        guard case .invalid = ResponseParser.parse(bytes(text), complete: false) else { Issue.record("accepted \(text)"); return }
    }

    @Test func anIncompleteHeadAtCloseIsRefused() {
        #expect(ResponseParser.parse(bytes("HTTP/1.1 200 OK\r\n"), complete: true) == .invalid("incomplete head"))
        #expect(ResponseParser.parse([], complete: true) == .invalid("no response"))
    }
}

/// The client's deadline and size cap, against a loopback peer that misbehaves.
@Suite struct PlainHTTPClientTests {
    /// A one-connection server on 127.0.0.1 that runs `behave` on the accepted socket.
    func peer(_ behave: @escaping @Sendable (Int32) -> Void) -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        listen(fd, 1)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        Thread.detachNewThread {
            let client = accept(fd, nil, nil)
            close(fd)
            behave(client)
            close(client)
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    func exchange(port: Int, timeout: Duration = .seconds(5), maxResponse: Int = 1000) -> Result<PlainHTTPClient.Response, CommandFailure> {
        let request = PlainHTTPClient.request(method: "POST", target: "/rpc", authority: "127.0.0.1:\(port)", headers: [], body: [1])
        do throws(CommandFailure) {
            return .success(try PlainHTTPClient.exchange(host: "127.0.0.1", port: port, request: request, timeout: timeout,
                                                         maxResponse: maxResponse, describe: "the peer"))
        } catch { return .failure(error) }
    }

    @Test func aSilentPeerTimesOut() {
        // Held 5 s, bounded at 3 s: a loaded machine gets 2.7 s past the 300 ms timeout (1 s left it 0.7 s); waiting for the peer still fails.
        let port = peer { _ in usleep(5_000_000) }
        let start = ContinuousClock.now
        guard case .failure(let failure) = exchange(port: port, timeout: .milliseconds(300)) else { Issue.record("answered"); return }
        #expect(failure.message == "no answer from the peer in time")
        #expect(ContinuousClock.now - start < .seconds(3))
    }

    @Test func anOversizedResponseIsRefused() {
        let port = peer { fd in
            let junk = Array("HTTP/1.1 200 OK\r\n\r\n".utf8) + [UInt8](repeating: 0x41, count: 5000)
            _ = junk.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        guard case .failure(let failure) = exchange(port: port) else { Issue.record("accepted"); return }
        #expect(failure.message == "the peer sent a response over 1000 bytes")
    }

    @Test func theRequestCarriesHostConnectionCloseAndLength() throws {
        let seen = LockedBytes()
        let port = peer { fd in
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            seen.set(Array(buffer.prefix(max(0, n))))
            let reply = Array("HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok".utf8)
            _ = reply.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        #expect(try exchange(port: port).get() == .init(status: 201, headers: ["content-length": "2"], body: Array("ok".utf8)))
        #expect(String(decoding: seen.get(), as: UTF8.self)
                == "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nContent-Length: 1\r\n\r\n\u{1}")
    }
}

final class LockedBytes: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes: [UInt8] = []
    func set(_ b: [UInt8]) { lock.lock(); bytes = b; lock.unlock() }
    func get() -> [UInt8] { lock.lock(); defer { lock.unlock() }; return bytes }
}
