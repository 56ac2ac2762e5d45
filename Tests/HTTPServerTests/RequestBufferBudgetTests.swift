@testable import HTTPServer
import Testing

/// Issue 8, item 2: a global cap on buffered request bytes, enforced per connection step.
@Suite struct RequestBufferBudgetTests {
    let clock = FakeClock()
    let timeouts = HTTPTimeouts(requestHead: .seconds(10), requestBody: .seconds(20), idle: .seconds(60))

    func machine(_ budget: RequestBufferBudget) -> Machine {
        Machine(limits: HTTPLimits(), timeouts: timeouts, remoteAddress: "192.0.2.1", clock: clock, budget: budget)
    }

    func receive(_ machine: inout Machine, _ bytes: [UInt8]) -> Machine.Action {
        bytes.withUnsafeBytes { machine.bytesReceived($0) }
    }

    static let head = Array("POST /v1/echo HTTP/1.1\r\nHost: t\r\nContent-Length: 65536\r\n\r\n".utf8)

    @Test func theBudgetCountsGrowthAndRefusesOnlyGrowthPastTheLimit() {
        let budget = RequestBufferBudget(limit: 100)
        #expect(budget.update(from: 0, to: 60))
        #expect(!budget.update(from: 0, to: 60))      // 120 > 100 and growing
        #expect(budget.update(from: 60, to: 50))      // shrinking is always fine
        #expect(budget.used == 110)
        #expect(budget.highWater == 120)
        budget.resetHighWater()
        #expect(budget.highWater == 110)
    }

    /// A declared length reserves nothing: a head alone holds no body buffer.
    @Test func aDeclaredLengthReservesNothing() {
        let budget = RequestBufferBudget(limit: 1 << 20)
        var m = machine(budget)
        #expect(receive(&m, Self.head) == .startReading)
        #expect(budget.used < 4096)
    }

    /// Past the budget, the connection whose unfinished body grows gets 503 + Retry-After and
    /// its buffers are returned; others keep theirs; a completed request gives its buffer back.
    @Test func unfinishedBodiesPastTheBudgetAre503AndReturnTheirBuffers() throws {
        let budget = RequestBufferBudget(limit: 150 * 1024)
        let chunk = [UInt8](repeating: 0x61, count: 60 * 1024)
        var machines = (0..<3).map { _ in machine(budget) }
        for i in 0..<3 { #expect(receive(&machines[i], Self.head) == .startReading) }
        #expect(receive(&machines[0], chunk) == .startReading)
        #expect(receive(&machines[1], chunk) == .startReading)
        #expect(budget.used >= 120 * 1024)
        let action = receive(&machines[2], chunk)
        guard case .write(let bytes) = action, let reply = WrittenResponse(bytes) else {
            Issue.record("expected a 503, got \(action)")
            return
        }
        #expect(reply.status == 503)
        #expect(reply.header("Retry-After") == "1")
        #expect(reply.header("Connection") == "close")
        #expect(machines[2].bufferedBytes == 0)
        let afterRefusal = budget.used
        #expect(afterRefusal < 150 * 1024)
        #expect(machines[2].writeCompleted() == .closeAfterDraining)

        // The first finishes its body: dispatched, its buffer handed over and no longer counted.
        let rest = [UInt8](repeating: 0x62, count: 65536 - chunk.count)
        guard case .dispatch(let request) = receive(&machines[0], rest) else { Issue.record("no dispatch"); return }
        #expect(request.body.count == 65536)
        #expect(machines[0].bufferedBytes == 0)
        #expect(budget.used < afterRefusal)
        machines[1].closed()
        #expect(budget.used == 0)
    }
}
