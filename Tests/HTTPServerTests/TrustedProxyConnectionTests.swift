@testable import HTTPServer
import Testing

/// A connection from a trusted proxy, free of I/O: its requests' forwarding headers, or the
/// PROXY header it opens with, name the address every per-address limit counts.
@Suite struct TrustedProxyConnectionTests {
    let clock = FakeClock()
    let timeouts = HTTPTimeouts(requestHead: .seconds(10), requestBody: .seconds(20), idle: .seconds(60),
                                write: .seconds(30), linger: .seconds(2))
    static let trusted = try! TrustedProxies(parsing: "10.0.0.0/8")
    static let request = "GET /x HTTP/1.1\r\nHost: t\r\nX-Forwarded-For: 1.2.3.4, 198.51.100.7\r\n\r\n"

    func machine(peer: String, proxyProtocol: Bool = false, trusted: TrustedProxies = trusted) -> Machine {
        Machine(limits: HTTPLimits(), timeouts: timeouts, peer: IPAddress(peer)!, trustedProxies: trusted,
                proxyProtocol: proxyProtocol, clock: clock)
    }

    /// Feeds `text` in `chunks`; the first action that is not a request for more input.
    func feed(_ m: inout Machine, _ text: String, chunks: [Range<Int>]) -> Machine.Action {
        let bytes = latin1(text)
        for chunk in chunks {
            let action = Array(bytes[chunk]).withUnsafeBytes { m.bytesReceived($0) }
            if action != .startReading { return action }
        }
        return .startReading
    }

    /// The address of the request `text` dispatches, the same whole, byte by byte and split anywhere.
    func dispatchedAddress(_ make: () -> Machine, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        let n = latin1(text).count
        var ways: [[Range<Int>]] = [[0..<n], (0..<n).map { $0..<($0 + 1) }]
        ways += (1..<n).map { [0..<$0, $0..<n] }
        var seen: Set<String> = []
        for chunks in ways {
            var m = make()
            guard case .dispatch(let request) = feed(&m, text, chunks: chunks) else {
                Issue.record("no dispatch for \(chunks.count) chunks", sourceLocation: sourceLocation)
                return nil
            }
            seen.insert(request.remoteAddress)
        }
        #expect(seen.count == 1, "\(seen)", sourceLocation: sourceLocation)
        return seen.first
    }

    @Test func aTrustedPeersForwardedForNamesTheClientOfEachRequest() {
        var m = machine(peer: "10.0.0.5")
        #expect(m.remoteAddress == "10.0.0.5")
        guard case .dispatch(let first) = feed(&m, Self.request, chunks: [0..<latin1(Self.request).count]) else {
            Issue.record("no dispatch"); return
        }
        #expect(first.remoteAddress == "198.51.100.7")
        _ = m.responseReady(HTTPResponse(status: 200), sequence: m.sequence)
        _ = m.writeCompleted()
        // The next request on the same connection may be another client's.
        let second = "GET /x HTTP/1.1\r\nHost: t\r\nForwarded: for=\"[2001:db8:1:2::9]:4711\"\r\n\r\n"
        guard case .dispatch(let next) = feed(&m, second, chunks: [0..<latin1(second).count]) else { Issue.record("no dispatch"); return }
        #expect(next.remoteAddress == "2001:db8:1:2::/64")
    }

    @Test func anUntrustedPeersForwardedForIsIgnored() {
        #expect(dispatchedAddress({ machine(peer: "203.0.113.9") }, Self.request) == "203.0.113.9")
        #expect(dispatchedAddress({ machine(peer: "10.0.0.5", trusted: .none) }, Self.request) == "10.0.0.5")
    }

    @Test func aPROXYHeaderNamesTheConnectionsClientInEverySplit() {
        let v1 = "PROXY TCP4 198.51.100.7 10.0.0.1 56324 443\r\n" + "GET /x HTTP/1.1\r\nHost: t\r\n\r\n"
        #expect(dispatchedAddress({ machine(peer: "10.0.0.5", proxyProtocol: true) }, v1) == "198.51.100.7")
        let v2Bytes: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A, 0x21, 0x11, 0, 12,
                                198, 51, 100, 7, 10, 0, 0, 1, 0xDC, 0x04, 0x01, 0xBB]
        // As ISO-8859-1 text, which `latin1` turns back into these bytes.
        let v2 = String(String.UnicodeScalarView(v2Bytes.map { Unicode.Scalar($0) }))
        #expect(dispatchedAddress({ machine(peer: "10.0.0.5", proxyProtocol: true) }, v2 + "GET /x HTTP/1.1\r\nHost: t\r\n\r\n") == "198.51.100.7")
        // LOCAL: the proxy's own connection (a health check) is the proxy's.
        let local = "PROXY UNKNOWN\r\nGET /x HTTP/1.1\r\nHost: t\r\n\r\n"
        #expect(dispatchedAddress({ machine(peer: "10.0.0.5", proxyProtocol: true) }, local) == "10.0.0.5")
        // The PROXY header's source, when itself a trusted proxy, may forward for another.
        let chained = "PROXY TCP4 10.9.9.9 10.0.0.1 1 2\r\n" + Self.request
        #expect(dispatchedAddress({ machine(peer: "10.0.0.5", proxyProtocol: true) }, chained) == "198.51.100.7")
        let direct = "PROXY TCP4 198.51.100.8 10.0.0.1 1 2\r\n" + Self.request
        #expect(dispatchedAddress({ machine(peer: "10.0.0.5", proxyProtocol: true) }, direct) == "198.51.100.8")
    }

    @Test func theMachineKnowsTheClientOnceTheHeaderIsRead() {
        var m = machine(peer: "10.0.0.5", proxyProtocol: true)
        #expect(m.awaitingProxyHeader)
        let header = "PROXY TCP4 198.51.100.7 10.0.0.1 1 2\r\n"
        #expect(feed(&m, header, chunks: [0..<latin1(header).count]) == .startReading)
        #expect(!m.awaitingProxyHeader && m.remoteAddress == "198.51.100.7")
        // Its share being full, the connection is answered 503 and closed.
        guard case .write(let bytes) = m.refuseAddressFull(), let response = WrittenResponse(bytes) else { Issue.record("no 503"); return }
        #expect(response.status == 503 && response.header("Retry-After") == "1" && response.header("Connection") == "close")
    }

    @Test func aTrustedPeerWithoutTheHeaderIsClosedUnanswered() {
        for text in ["GET /x HTTP/1.1\r\nHost: t\r\n\r\n", "PROXY TCP4 198.51.100.7 10.0.0.1 56324\r\nGET /", "\r\n\r\n\0\r\nQUIT\n\u{11}"] {
            var m = machine(peer: "10.0.0.5", proxyProtocol: true)
            #expect(feed(&m, text, chunks: [0..<latin1(text).count]) == .close, "\(text)")
            #expect(m.isClosed)
        }
    }

    @Test func anUntrustedPeerIsNeverReadForAPROXYHeader() {
        // Its bytes are HTTP from the first: a PROXY header is refused as the request it is not.
        for text in ["PROXY TCP4 198.51.100.7 10.0.0.1 56324 443\r\nGET /x HTTP/1.1\r\nHost: t\r\n\r\n",
                     "\r\n\r\n\0\r\nQUIT\n!\u{11}\0\u{0C}xxxxxxxxxxxxGET /x HTTP/1.1\r\nHost: t\r\n\r\n"] {
            var m = machine(peer: "203.0.113.9", proxyProtocol: true)
            guard case .write(let bytes) = feed(&m, text, chunks: [0..<latin1(text).count]), let response = WrittenResponse(bytes) else {
                Issue.record("not refused: \(text)"); continue
            }
            #expect(response.status == 400 && response.header("Connection") == "close")
        }
        // ... and its plain requests are served as its own.
        #expect(dispatchedAddress({ machine(peer: "203.0.113.9", proxyProtocol: true) }, Self.request) == "203.0.113.9")
    }

    @Test func theTableMovesASlotToTheClientWithinItsShare() {
        let table = ConnectionTable(policy: ConnectionPolicy(maxConnections: 10, maxPerAddress: 1, idleReserve: 1))
        let via = ConnectionTable.proxyKey(IPAddress("10.0.0.5")!)
        // A trusted proxy's connections are not capped by the per-address share.
        #expect(table.admit(via, capped: false) == .accept)
        #expect(table.admit(via, capped: false) == .accept)
        #expect(table.admit(via, capped: false) == .accept)
        #expect(table.move(from: via, to: "198.51.100.7"))
        #expect(!table.move(from: via, to: "198.51.100.7"))
        #expect(table.move(from: via, to: "198.51.100.8"))
        #expect(table.open(from: via) == 1 && table.open(from: "198.51.100.7") == 1 && table.count == 3)
        #expect(table.statistics.refusedAddressFull == 1)
        table.release("198.51.100.7")
        #expect(table.move(from: via, to: "198.51.100.7"))
        #expect(table.open(from: via) == 0)
    }
}
