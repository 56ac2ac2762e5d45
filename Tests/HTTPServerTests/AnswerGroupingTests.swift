import Foundation
import Glibc
import HTTPServer
import Locking
import Testing

/// When a loop sends the answers it makes (issue 17): together, so that one wake-up of a client
/// serves many, but in groups of at most 16, so that the first request of a large batch does not
/// wait for the whole batch to be answered.
@Suite(.timeLimit(.minutes(5))) struct AnswerGroupingTests {
    /// Blocks the loop on `POST /gate` until released; on every other request, records how many
    /// of `watched`'s sockets already hold an answer (unread bytes).
    struct GatedResponder: HTTPResponder {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let watched = LockedValueBox<[Int32]>([])
        let answeredWhenHandled = LockedValueBox<[Int]>([])
        /// Signalled once a request has been handled while every watched socket was watched.
        let handled = DispatchSemaphore(value: 0)

        func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
            if request.path == "/gate" {
                entered.signal()
                release.wait()
            } else {
                let answered = watched.withLock { $0 }.filter { fd in
                    var available: Int32 = 0
                    return ioctl(fd, UInt(FIONREAD), &available) == 0 && available > 0
                }.count
                answeredWhenHandled.withLock { $0.append(answered) }
                if request.path == "/batch" { handled.signal() }
            }
            respond(HTTPResponse(status: 200, contentType: "text/plain", body: "ok\n"))
        }
    }

    @Test func answersOfOneIterationLeaveInGroupsOfSixteen() throws {
        let responder = GatedResponder()
        try withTestServer(loopCount: 1, responder: responder) { _, port in
            // Connected and answered once first, so that all are adopted by the loop.
            let clients = try (0..<24).map { _ in try RawClient(port: port) }
            for client in clients {
                client.send("GET /warm HTTP/1.1\r\nHost: t\r\n\r\n")
                _ = try client.readResponse()
            }
            responder.answeredWhenHandled.withLock { $0 = [] }
            responder.watched.withLock { $0 = clients.map(\.fd) }

            // While the loop waits in /gate, every client's request arrives: the loop's next
            // iteration reads all 24 together.
            let gate = try RawClient(port: port)
            gate.send("POST /gate HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
            #expect(responder.entered.wait(timeout: .now() + 30) == .success)
            for client in clients { client.send("GET /batch HTTP/1.1\r\nHost: t\r\n\r\n") }
            var pending: Int32 = 0
            // Each request is in the server's socket before the loop is let go.
            for _ in 0..<2_000 {
                pending = 0
                for client in clients {
                    var queued: Int32 = 0
                    ioctl(client.fd, UInt(TIOCOUTQ), &queued)
                    pending += queued
                }
                if pending == 0 { break }
                usleep(2_000)
            }
            #expect(pending == 0)
            responder.release.signal()
            // Nothing is read until all 24 are handled: reading would empty the sockets counted.
            for _ in clients where responder.handled.wait(timeout: .now() + 30) != .success {
                Issue.record("the batch was not handled")
                break
            }
            #expect(try gate.readResponse().status == 200)
            for client in clients { #expect(try client.readResponse().status == 200) }

            // The first 16 answers wait for each other and leave together, before the 17th
            // request is handled; the last 8 leave at the iteration's end.
            let seen = responder.answeredWhenHandled.withLock { $0 }
            #expect(seen == Array(repeating: 0, count: 16) + Array(repeating: 16, count: 8))
        }
    }
}
