import Foundation
import Glibc
import HTTPServer
import Locking
import TestSupport
import Testing

/// H02/H03 and I. Timing and resource probes, with short configured timeouts so they stay quick.
/// Times are only bounded loosely (a deadline must not fire early, and must fire); nothing here
/// measures performance.
@Suite(.timeLimit(.minutes(5))) struct TimingProbes {
    static let short = HTTPTimeouts(requestHead: .seconds(1), requestBody: .seconds(1), idle: .seconds(1),
                                    write: .seconds(1), linger: .milliseconds(500), timerResolution: .milliseconds(20))

    func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// H02 / I04: a connection that sends nothing is closed after the head timeout, without a response.
    @Test func connectAndWaitIsClosedSilently() throws {
        try withTestServer(timeouts: Self.short) { _, port in
            let client = try RawClient(port: port)
            let start = ContinuousClock.now
            #expect(client.closesWithoutMoreData(within: .seconds(4)))
            #expect(seconds(since: start) > 0.8)
            expectServerStillServes(port: port)
        }
    }

    /// H03: an incomplete head gets 408 with Connection: close when the deadline passes.
    @Test func incompleteHeadGets408() throws {
        try withTestServer(timeouts: Self.short) { _, port in
            let client = try RawClient(port: port)
            client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n")
            let response = try client.readResponse()
            #expect(response.status == 408)
            expectHygiene([response], closed: true)
            #expect(client.closesWithoutMoreData())
        }
    }

    /// I01 slowloris: a header line every 300 ms cannot stretch the 1 s head deadline.
    @Test func slowloris() throws {
        try withTestServer(timeouts: HTTPTimeouts(requestHead: .seconds(1), timerResolution: .milliseconds(20))) { _, port in
            let client = try RawClient(port: port, receiveTimeout: .milliseconds(300))
            let start = ContinuousClock.now
            client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n")
            var response: ReceivedResponse?
            while response == nil && seconds(since: start) < 5 {
                client.send("X-a: b\r\n")
                response = try? client.readResponse()
            }
            #expect(response?.status == 408)
            #expect(seconds(since: start) < 3)
            #expect(client.closesWithoutMoreData())
        }
    }

    /// I02 slow body: 1 byte every 200 ms of a 1000-byte body hits the 1 s body deadline; the
    /// handler never runs.
    @Test func slowBody() throws {
        let handled = LockedValueBox(0)
        try withTestServer(timeouts: Self.short, responder: testRouter(handled: handled)) { _, port in
            let client = try RawClient(port: port, receiveTimeout: .milliseconds(200))
            client.send("POST /v1/echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\n")
            let start = ContinuousClock.now
            var response: ReceivedResponse?
            while response == nil && seconds(since: start) < 5 {
                client.send("a")
                response = try? client.readResponse()
            }
            #expect(response?.status == 408)
            #expect(response?.header("Connection") == "close")
            #expect(client.closesWithoutMoreData())
            #expect(handled.withLock { $0 } == 0)
        }
    }

    /// I03: after one good request, silence: closed after the idle timeout with no 408.
    @Test func idleKeepAliveClosesWithout408() throws {
        try withTestServer(timeouts: Self.short) { _, port in
            let client = try RawClient(port: port)
            client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try client.readResponse().status == 200)
            let start = ContinuousClock.now
            #expect(client.closesWithoutMoreData(within: .seconds(4)))
            #expect(seconds(since: start) > 0.8)
        }
    }

    /// I05: 300 silent connections do not stop a fresh request from being answered within 1 s,
    /// and they are all closed by the head deadline.
    @Test func manyIdleConnections() throws {
        try withTestServer(timeouts: HTTPTimeouts(requestHead: .seconds(2), timerResolution: .milliseconds(20))) { server, port in
            let idle = try (0..<300).map { _ in try RawClient(port: port) }
            #expect(waitUntil { server.openConnections == 300 })
            let fresh = try RawClient(port: port, receiveTimeout: .seconds(1))
            fresh.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try fresh.readResponse().status == 200)
            for client in idle {
                #expect(client.closesWithoutMoreData(within: .seconds(4)))
            }
            #expect(waitUntil { server.openConnections <= 1 })
        }
    }

    /// I06 slow read: 100 pipelined GETs of a 256 KiB response, never read. The server has one
    /// response in flight at a time, and drops the connection when the write deadline passes.
    @Test func slowReaderIsDropped() throws {
        try withTestServer(timeouts: Self.short) { server, port in
            let client = try RawClient(port: port)
            var small: Int32 = 4096
            setsockopt(client.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            client.send(String(repeating: "GET /large HTTP/1.1\r\nHost: t\r\n\r\n", count: 100))
            #expect(waitUntil(timeout: .seconds(4)) { server.openConnections == 0 }, "the slow reader should have been dropped")
            expectServerStillServes(port: port)
        }
    }

    /// Issue 8: one address holds at most its share; the next connection from it is answered
    /// 503 with `Retry-After` and closed, while another address is still served.
    @Test func connectionsPerAddressAreCapped() throws {
        try withTestServer(maxConnections: 100, maxConnectionsPerAddress: 3) { server, port in
            let open = try (0..<3).map { _ in try RawClient(port: port) }
            #expect(waitUntil { server.openConnections == 3 })
            let refused = try RawClient(port: port)
            let answer = try refused.readResponse()
            #expect(answer.status == 503)
            #expect(answer.header("Retry-After") == "1")
            #expect(answer.header("Connection") == "close")
            #expect(refused.closesWithoutMoreData(within: .seconds(2)))
            let other = try RawClient(port: port, source: "127.0.0.2")
            other.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try other.readResponse().status == 200)
            for client in open {
                client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(try client.readResponse().status == 200)
            }
            #expect(server.connectionStatistics.refusedAddressFull == 1)
        }
    }

    /// Requests are answered on the loop that reads them, so new connections are spread over
    /// the loops whichever one the kernel wakes to accept them (issue 17: a burst all landed on
    /// one); a loop whose connections close takes the next ones.
    @Test func connectionsAreSpreadOverTheLoops() throws {
        try withTestServer(loopCount: 2) { server, port in
            var clients = try (0..<40).map { _ in try RawClient(port: port) }
            #expect(waitUntil { server.connectionsPerLoop == [20, 20] }, "\(server.connectionsPerLoop)")
            for client in clients {
                client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(try client.readResponse().status == 200)
            }
            clients.removeFirst(10)
            #expect(waitUntil { server.openConnections == 30 })
            let perLoop = server.connectionsPerLoop
            #expect(perLoop.reduce(0, +) == 30, "\(perLoop)")
            clients += try (0..<10).map { _ in try RawClient(port: port) }
            #expect(waitUntil { server.connectionsPerLoop == [20, 20] }, "\(server.connectionsPerLoop)")
        }
    }

    /// A client that pipelines without pause shares its loop with the others: a connection reads
    /// at most `Connection.readBudget` times per loop iteration, however many answers it gets in
    /// between (issue 17's hostile run: a redemption beside such a flood waited 580 ms). Here one
    /// loop serves a stream of 300 echo requests of 60,000 bytes, drained as fast as it comes,
    /// and another client is answered before the stream ends.
    @Test func aClientPipeliningWithoutPauseDoesNotHoldItsLoop() throws {
        try withTestServer(loopCount: 1) { _, port in
            let total = 300
            let one = latin1("POST /v1/echo HTTP/1.1\r\nHost: t\r\nContent-Length: 60000\r\n\r\n" + String(repeating: "a", count: 60_000))
            let stream = Array([[UInt8]](repeating: one, count: total).joined())
            // Connected only once the 18 MB stream is built (25 s in debug on a loaded machine): silent past the head deadline, it was closed.
            let flooder = try RawClient(port: port)
            Thread.detachNewThread { _ = flooder.send(stream) }
            let answered = LockedValueBox(0)
            let drained = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                for _ in 0..<total {
                    guard (try? flooder.readResponse())?.status == 200 else { break }
                    answered.withLock { $0 += 1 }
                }
                drained.signal()
            }
            #expect(waitUntil { answered.withLock { $0 } >= 10 })
            let other = try RawClient(port: port)
            other.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try other.readResponse().status == 200)
            let whenAnswered = answered.withLock { $0 }
            // Counted as the flooder reads, so answers still in the socket buffers count too (tens of
            // them): before the stream ends is what can be asserted. The old budget, renewed by each
            // answer, failed this in one run of three (a short read ends the chain at random).
            #expect(whenAnswered < total, "the other client was answered only after the whole stream")
            #expect(drained.wait(timeout: .now() + 60) == .success)
            #expect(answered.withLock { $0 } == total)
        }
    }

    /// Issue 8: when the table nears full, idle connections are evicted oldest first, so a new
    /// client is accepted and answered; a connection with a request in progress is kept.
    @Test func aNearlyFullTableEvictsTheOldestIdleConnection() throws {
        try withTestServer(maxConnections: 5, idleReserve: 1, loopCount: 1) { server, port in
            let oldest = try RawClient(port: port)
            #expect(waitUntil { server.openConnections == 1 })
            let busy = try RawClient(port: port)
            busy.send("GET /healthz HTTP/1.1\r\nHost: t\r\n")   // a head in progress: not idle
            let kept = try (0..<2).map { _ in try RawClient(port: port) }
            for client in kept {
                client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(try client.readResponse().status == 200)
            }
            #expect(waitUntil { server.openConnections == 4 })
            let newcomer = try RawClient(port: port)
            newcomer.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try newcomer.readResponse().status == 200)
            #expect(oldest.closesWithoutMoreData(within: .seconds(2)))
            busy.send("\r\n")
            #expect(try busy.readResponse().status == 200)
            #expect(server.connectionStatistics.evictedIdle == 1)
        }
    }

    /// Issue 8: past the request-buffer budget, a connection whose unfinished body grows is
    /// answered 503 with `Retry-After` and closed; a small request is still served.
    @Test func unfinishedBodiesPastTheBufferBudgetAre503() throws {
        try withTestServer(loopCount: 1, maxBufferedRequestBytes: 256 * 1024) { _, port in
            let head = "POST /v1/echo HTTP/1.1\r\nHost: t\r\nContent-Length: 65536\r\n\r\n"
            let body = String(repeating: "a", count: 65_535)
            var clients: [RawClient] = []
            var unanswered: [RawClient] = []
            var refused = 0
            for _ in 0..<8 {
                let client = try RawClient(port: port, receiveTimeout: .milliseconds(300))
                client.send(head + body)
                clients.append(client)
                if let answer = try? client.readResponse() {
                    #expect(answer.status == 503)
                    #expect(answer.header("Retry-After") == "1")
                    refused += 1
                } else {
                    unanswered.append(client)
                }
            }
            // A loaded machine may send a 503 after 300 ms: when too few came in time, the others get a patient second look.
            for client in refused < 4 ? unanswered : [] {
                client.setReceiveTimeout(.seconds(5))
                if let answer = try? client.readResponse() {
                    #expect(answer.status == 503 && answer.header("Retry-After") == "1")
                    refused += 1
                }
            }
            #expect(refused >= 4, "8 bodies of 64 KiB against a 256 KiB budget: \(refused) refused")
            #expect(refused < 8)
            expectServerStillServes(port: port)
        }
    }
}
