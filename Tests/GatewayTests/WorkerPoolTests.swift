import Foundation
import Gateway
import Locking
import TestSupport
import Testing

/// The worker pool's end: what is queued still runs, its threads end, and nothing refers
/// to a pool that is gone.
@Suite struct WorkerPoolTests {
    /// Shutdown refuses new work, lets the queued jobs run, and returns once every thread ended.
    @Test func shutdownRunsWhatIsQueuedAndJoinsEveryThread() {
        let pool = WorkerPool(threads: 2, capacity: 64)
        let gate = DispatchSemaphore(value: 0)
        let ran = LockedValueBox(0)
        #expect(pool.submit { gate.wait(); ran.withLock { $0 += 1 } })
        #expect(pool.submit { gate.wait(); ran.withLock { $0 += 1 } })
        #expect((0..<30).allSatisfy { _ in pool.submit { ran.withLock { $0 += 1 } } })
        gate.signal()
        gate.signal()
        pool.shutdown()
        #expect(ran.withLock { $0 } == 32)
        #expect(!pool.submit {})
        pool.shutdown()   // a second shutdown has nothing left to wait for
    }

    /// A pool let go of ends its threads once their jobs are done (before, each worker waited
    /// for ever on the freed pool it referred to unowned).
    @Test func aDroppedPoolLetsItsThreadsEnd() {
        // Six threads: no other pool of these tests has a "worker-5".
        func lastWorkers() -> Int { threadNames().filter { $0 == "worker-5" }.count }
        let before = lastWorkers()
        let finished = DispatchSemaphore(value: 0)
        do {
            let pool = WorkerPool(threads: 6, capacity: 8)
            #expect(waitUntil(timeout: .seconds(30)) { lastWorkers() == before + 1 })
            #expect(pool.submit { finished.signal() })
        }
        #expect(finished.wait(timeout: .now() + 30) == .success)
        #expect(waitUntil(timeout: .seconds(30)) { lastWorkers() == before })
    }

    /// The kernel's name of each thread of this process.
    private func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}
