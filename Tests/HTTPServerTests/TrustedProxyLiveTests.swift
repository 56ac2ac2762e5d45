import HTTPServer
import Testing

/// A real server behind "proxies" on 127.0.0.1: the connection table counts each client the
/// proxy names against its own share, and the proxy itself is not capped.
@Suite(.serialized) struct TrustedProxyLiveTests {
    /// Answers `GET /who` with the address the request is counted against.
    static func whoRouter() -> Router {
        var router = Router()
        router.get("/who") { request in HTTPResponse(status: 200, contentType: "text/plain", body: request.remoteAddress) }
        return router
    }

    static func who(_ client: RawClient, forwardedFor: String? = nil) throws -> ReceivedResponse {
        client.send("GET /who HTTP/1.1\r\nHost: t\r\n" + (forwardedFor.map { "X-Forwarded-For: \($0)\r\n" } ?? "") + "\r\n")
        return try client.readResponse()
    }

    @Test func eachClientBehindATrustedProxyHasItsOwnShareOfConnections() throws {
        let trusted = try TrustedProxies(parsing: "127.0.0.1")
        try withTestServer(maxConnections: 100, maxConnectionsPerAddress: 2, trustedProxies: trusted, responder: Self.whoRouter()) { server, port in
            // Five connections from the proxy, over its own share of 2: it carries many clients.
            let clients = try (0..<5).map { _ in try RawClient(port: port) }
            let a1 = try Self.who(clients[0], forwardedFor: "198.51.100.7")
            #expect(a1.status == 200 && String(decoding: a1.body, as: UTF8.self) == "198.51.100.7")
            #expect(try Self.who(clients[1], forwardedFor: "198.51.100.7").status == 200)
            // A's third connection is over A's share: 503, closed.
            let a3 = try Self.who(clients[2], forwardedFor: "198.51.100.7")
            #expect(a3.status == 503 && a3.header("Retry-After") == "1", "\(a3)")
            #expect(clients[2].closesWithoutMoreData())
            // B is not affected.
            let b = try Self.who(clients[3], forwardedFor: "198.51.100.8")
            #expect(b.status == 200 && String(decoding: b.body, as: UTF8.self) == "198.51.100.8")
            // A header sent by a client that is not a trusted proxy counts for nothing.
            let outsider = try RawClient(port: port, source: "127.0.0.2")
            let o = try Self.who(outsider, forwardedFor: "198.51.100.9")
            #expect(String(decoding: o.body, as: UTF8.self) == "127.0.0.2")
            #expect(server.connectionStatistics.refusedAddressFull == 1)
            _ = clients[4]
        }
    }

    @Test func withoutTrustEveryConnectionOfTheProxyCountsAgainstOneShare() throws {
        try withTestServer(maxConnections: 100, maxConnectionsPerAddress: 2, responder: Self.whoRouter()) { _, port in
            let clients = try (0..<2).map { _ in try RawClient(port: port) }
            let a = try Self.who(clients[0], forwardedFor: "198.51.100.7")
            #expect(String(decoding: a.body, as: UTF8.self) == "127.0.0.1")
            let third = try RawClient(port: port)
            #expect(try third.readResponse().status == 503)
            _ = clients[1]
        }
    }

    @Test func aPROXYHeaderNamesTheClientOnlyFromATrustedPeer() throws {
        let trusted = try TrustedProxies(parsing: "127.0.0.1")
        try withTestServer(maxConnections: 100, maxConnectionsPerAddress: 1, trustedProxies: trusted, proxyProtocol: true,
                           responder: Self.whoRouter()) { _, port in
            let proxied = try RawClient(port: port)
            proxied.send("PROXY TCP4 198.51.100.7 127.0.0.1 40000 443\r\n")
            let first = try Self.who(proxied)
            #expect(first.status == 200 && String(decoding: first.body, as: UTF8.self) == "198.51.100.7", "\(first)")
            // The same client on a second connection is over its share of 1, before any request.
            let again = try RawClient(port: port)
            again.send("PROXY TCP4 198.51.100.7 127.0.0.1 40001 443\r\n")
            #expect(try again.readResponse().status == 503)
            // Another client is not.
            let other = try RawClient(port: port)
            other.send("PROXY TCP4 198.51.100.8 127.0.0.1 40002 443\r\n")
            #expect(String(decoding: try Self.who(other).body, as: UTF8.self) == "198.51.100.8")
            // A trusted peer's connection without the header is closed unanswered.
            let bare = try RawClient(port: port)
            bare.send("GET /who HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(bare.closesWithoutMoreData())
            // An untrusted peer's PROXY header is refused; its own requests are its own.
            let outsider = try RawClient(port: port, source: "127.0.0.2")
            outsider.send("PROXY TCP4 198.51.100.9 127.0.0.1 40003 443\r\n")
            #expect(try outsider.readResponse().status == 400)
            let plain = try RawClient(port: port, source: "127.0.0.3")
            #expect(String(decoding: try Self.who(plain).body, as: UTF8.self) == "127.0.0.3")
        }
    }
}
