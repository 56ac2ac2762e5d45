import HTTPServer
import Locking
import Testing

/// Refusals go to the responder (`refused`), which learns the method and target whenever the
/// request-line was read, and chooses the body; the server keeps the status and closes.
@Suite struct RefusalTests {
    let clock = FakeClock()
    let timeouts = HTTPTimeouts(requestHead: .seconds(10), requestBody: .seconds(20), idle: .seconds(60),
                                write: .seconds(30), linger: .seconds(2))
    let seen = LockedValueBox<[HTTPRefusal]>([])

    func machine(limits: HTTPLimits = HTTPLimits()) -> Machine {
        Machine(limits: limits, timeouts: timeouts, remoteAddress: "192.0.2.1", clock: clock) { [seen] refusal in
            seen.withLock { $0.append(refusal) }
            // a responder that tries another status is overruled
            return HTTPResponse(status: 200, headers: ["X-Refused": "\(refusal.status)"], body: Array("custom".utf8))
        }
    }

    /// Feeds `pieces` one read at a time; returns the refusal the responder saw and what was written.
    func refuse(_ pieces: [String], limits: HTTPLimits = HTTPLimits(), wait: Bool = false) -> (HTTPRefusal?, WrittenResponse?) {
        var m = machine(limits: limits)
        var action = Machine.Action.none
        for piece in pieces {
            action = latin1(piece).withUnsafeBytes { m.bytesReceived($0) }
        }
        if wait {
            // past both deadlines: the head's (10 s) and the body's (10 + 20 s from the accept)
            clock.advance(.seconds(31))
            action = m.deadlinePassed()
        }
        guard case .write(let bytes) = action else {
            Issue.record("no refusal written: \(action)")
            return (nil, nil)
        }
        return (seen.withLock { $0.last }, WrittenResponse(bytes))
    }

    @Test func theResponderChoosesTheBodyAndTheServerKeepsTheStatusAndCloses() throws {
        let (refusal, written) = refuse(["POST /rpc HTTP/1.1\r\nHost: t\r\nContent-Length: 99999999\r\n\r\n"])
        #expect(refusal == HTTPRefusal(status: 413, message: refusal?.message ?? "", method: "POST", target: "/rpc"))
        let response = try #require(written)
        #expect(response.status == 413)
        #expect(response.header("X-Refused") == "413")
        #expect(response.header("Connection") == "close")
        #expect(response.body == Array("custom".utf8))
    }

    @Test func theRequestLineIsKnownEvenWhenItCameInPieces() {
        let (refusal, _) = refuse(["PO", "ST /r", "pc?x=1 HT", "TP/1.1\r\nHost: t\r\n", "Content-Length: 1\r\nContent-Length: 2\r\n\r\n"])
        #expect(refusal?.status == 400)
        #expect(refusal?.method == "POST" && refusal?.target == "/rpc?x=1" && refusal?.path == "/rpc")
    }

    @Test func aVersionRefusalAndASlowHeadKnowTheirRequestLine() {
        let (version, _) = refuse(["GET /healthz HTTP/2.0\r\n"])
        #expect(version?.status == 505 && version?.method == "GET" && version?.path == "/healthz")
        let (slow, _) = refuse(["POST /rpc HTTP/1.1\r\nHost: t\r\n"], wait: true)
        #expect(slow?.status == 408 && slow?.method == "POST" && slow?.path == "/rpc")
        // a slow body: the head was complete
        let (body, _) = refuse(["POST /rpc HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc"], wait: true)
        #expect(body?.status == 408 && body?.method == "POST" && body?.path == "/rpc")
    }

    @Test func aTooLongTargetKeepsItsPathWhenTheQueryCameFirst() {
        let limits = HTTPLimits(maxTargetLength: 64)
        let (long, written) = refuse(["POST /rpc?" + String(repeating: "a", count: 100) + " HTTP/1.1\r\n"], limits: limits)
        #expect(long?.status == 414 && long?.method == "POST" && long?.path == "/rpc")
        #expect(long?.target?.utf8.count == 64)
        #expect(written?.status == 414)
    }

    @Test func aRequestLineThatWasNeverReadIsUnknown() {
        let (refusal, _) = refuse(["GET /x\rHTTP/1.1\r\n"])
        #expect(refusal?.status == 400 && refusal?.method == nil && refusal?.target == nil)
        // and the next request of a connection does not inherit the previous one's line
        var m = machine()
        _ = latin1("GET /first HTTP/1.1\r\nHost: t\r\n\r\n").withUnsafeBytes { m.bytesReceived($0) }
        _ = m.responseReady(HTTPResponse(status: 200), sequence: m.sequence)
        _ = m.writeCompleted()
        let before = seen.withLock { $0.count }
        _ = latin1("\u{1}").withUnsafeBytes { m.bytesReceived($0) }
        #expect(seen.withLock { $0.count } == before + 1)
        #expect(seen.withLock { $0.last }?.target == nil)
    }

    /// The server knows no body format: without a responder that renders its refusals, the
    /// message is a line of plain text.
    @Test func theDefaultIsAPlainTextLine() throws {
        var m = Machine(limits: HTTPLimits(), timeouts: timeouts, remoteAddress: "192.0.2.1", clock: clock)
        let action = latin1("GET / HTTP/3.0\r\n").withUnsafeBytes { m.bytesReceived($0) }
        guard case .write(let bytes) = action else { Issue.record("\(action)"); return }
        let written = try #require(WrittenResponse(bytes))
        #expect(written.status == 505)
        #expect(written.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(String(decoding: written.body, as: UTF8.self) == "only HTTP/1.x is supported\n")
    }
}
