import Foundation
import Locking
import Testing

/// The package's concurrency primitives: a locked value, a value threads wait on, a thread
/// that can be joined.
@Suite struct LockingTests {
    /// Increments from many threads at once all land.
    @Test func lockedValueBoxSerialisesItsWriters() {
        let box = LockedValueBox(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<1_000 { box.withLock { $0 += 1 } }
        }
        #expect(box.withLock { $0 } == 8_000)
    }

    /// A waiter wakes when another thread makes its condition true, and sees that value.
    @Test func waitableBoxWakesAWaiterWhenTheValueIsReady() {
        let box = WaitableBox(0)
        let producer = JoinableThread(name: "producer") {
            for _ in 0..<100 { box.withLockNotifyingAll { $0 += 1 } }
        }
        let seen = box.wait(until: { $0 == 100 }, then: { $0 })
        producer.join()
        #expect(seen == 100)
    }

    /// A wait with a timeout that nobody satisfies ends, and says the condition did not hold.
    @Test func waitableBoxTimesOutWhenTheValueNeverGetsReady() {
        let box = WaitableBox(false)
        let ready = box.wait(until: { $0 }, timeout: 0.05) { _, ready in ready }
        #expect(!ready)
        box.withLockNotifyingAll { $0 = true }
        #expect(box.wait(until: { $0 }, timeout: 30) { _, ready in ready })
    }

    /// `join` returns only after the body returned; the thread runs under its kernel name.
    @Test func joinableThreadJoinWaitsForItsBody() {
        let done = LockedValueBox(false)
        let name = LockedValueBox("")
        let thread = JoinableThread(name: "joinable-test") {
            let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            name.withLock { $0 = comm.trimmingCharacters(in: .whitespacesAndNewlines) }
            usleep(20_000)
            done.withLock { $0 = true }
        }
        #expect(!thread.isCurrent)
        thread.join()
        #expect(done.withLock { $0 })
        #expect(name.withLock { $0 } == "joinable-test")
    }
}
