import Foundation
import Gateway
import Locking
import Testing

/// Issue 8, items 4 and 5: fair work and `rate_limited` for guessing.
@Suite struct RateLimitTests {
    let rule = FailureLimiter.Rule(maxFailures: 3, windowSeconds: 60, blockSeconds: 30)

    @Test func aKeyIsBlockedAfterTooManyFailuresInItsWindow() {
        var limiter = FailureLimiter(rule: rule)
        #expect(limiter.recordFailure("k", now: 100) == nil)
        #expect(limiter.recordFailure("k", now: 110) == nil)
        #expect(limiter.retryAfter("k", now: 110) == nil)
        #expect(limiter.recordFailure("k", now: 120) == 30)
        #expect(limiter.retryAfter("k", now: 120) == 30)
        #expect(limiter.retryAfter("k", now: 149) == 1)
        #expect(limiter.retryAfter("k", now: 150) == nil)
        #expect(limiter.retryAfter("other", now: 120) == nil)
        // failures while blocked do not extend the block
        var blocked = limiter
        #expect(blocked.recordFailure("k", now: 130) == nil)
        #expect(blocked.retryAfter("k", now: 130) == 20)
    }

    @Test func failuresSpreadBeyondTheWindowDoNotBlock() {
        var limiter = FailureLimiter(rule: rule)
        for t in stride(from: Int64(0), to: 600, by: 31) {
            #expect(limiter.recordFailure("k", now: t) == nil)
        }
        #expect(limiter.retryAfter("k", now: 600) == nil)
    }

    @Test func trackedKeysStayBounded() {
        var limiter = FailureLimiter(rule: rule, maxKeys: 100)
        for i in 0..<1000 { limiter.recordFailure("k\(i)", now: Int64(i)) }
        #expect(limiter.trackedKeys <= 100)
        // the newest ones are still counted
        limiter.recordFailure("k999", now: 1000)
        #expect(limiter.recordFailure("k999", now: 1000) == 30)
    }

    @Test func redemptionsAreLimitedPerKeyAndPerAddress() {
        let limits = RateLimits(.init(codeFailuresPerKey: .init(maxFailures: 2, windowSeconds: 60, blockSeconds: 60),
                                      codeFailuresPerAddress: .init(maxFailures: 3, windowSeconds: 60, blockSeconds: 90)))
        limits.codeRedemptionFailed(key: "a", address: "192.0.2.1", now: 0)
        #expect(limits.codeRedemptionRetryAfter(key: "a", address: "192.0.2.1", now: 0) == nil)
        limits.codeRedemptionFailed(key: "a", address: "192.0.2.1", now: 0)
        #expect(limits.codeRedemptionRetryAfter(key: "a", address: "192.0.2.9", now: 0) == 60)   // the key, anywhere
        #expect(limits.codeRedemptionRetryAfter(key: "b", address: "192.0.2.1", now: 0) == nil)
        limits.codeRedemptionFailed(key: "b", address: "192.0.2.1", now: 0)
        #expect(limits.codeRedemptionRetryAfter(key: "c", address: "192.0.2.1", now: 0) == 90)   // the address, any key
        #expect(limits.codeRedemptionRetryAfter(key: "c", address: "192.0.2.2", now: 0) == nil)
        #expect(limits.codeRedemptionRetryAfter(key: "a", address: "192.0.2.1", now: 10) == 80)  // the longer wait
    }

    @Test func frontTokensAreLimitedPerAddress() {
        let limits = RateLimits(.init(frontTokenFailuresPerAddress: .init(maxFailures: 2, windowSeconds: 60, blockSeconds: 45)))
        limits.frontTokenFailed(address: "192.0.2.1", now: 5)
        #expect(limits.frontTokenRetryAfter(address: "192.0.2.1", now: 5) == nil)
        limits.frontTokenFailed(address: "192.0.2.1", now: 6)
        #expect(limits.frontTokenRetryAfter(address: "192.0.2.1", now: 6) == 45)
        #expect(limits.frontTokenRetryAfter(address: "192.0.2.2", now: 6) == nil)
    }

    /// The worker queue: one key fills only its share; another key still gets in.
    @Test func oneKeyCannotFillTheWorkerQueue() {
        let pool = WorkerPool(threads: 1, capacity: 10, perKeyCapacity: 3)
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        #expect(pool.submit(key: "flood") { started.signal(); gate.wait() })
        started.wait()   // the worker is busy: everything after this queues
        #expect((0..<3).allSatisfy { _ in pool.submit(key: "flood") {} })
        #expect(!pool.submit(key: "flood") {})
        #expect(pool.submit(key: "other") {})
        let drained = DispatchSemaphore(value: 0)
        #expect(pool.submit { drained.signal() })
        gate.signal()
        #expect(drained.wait(timeout: .now() + 5) == .success)   // one thread, in order: the queue is empty
        let done = DispatchSemaphore(value: 0)
        #expect(pool.submit(key: "flood") { done.signal() })  // its share frees as jobs start
        #expect(done.wait(timeout: .now() + 5) == .success)
    }

    /// Workers carry their name to the kernel, where `top -H` and profiles read it.
    @Test func workersAreNamedForTheKernel() throws {
        let pool = WorkerPool(threads: 2, capacity: 4)
        let name = LockedValueBox("")
        let done = DispatchSemaphore(value: 0)
        #expect(pool.submit {
            let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            name.withLock { $0 = comm.trimmingCharacters(in: .whitespacesAndNewlines) }
            done.signal()
        })
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(["worker-0", "worker-1"].contains(name.withLock { $0 }), "\(name.withLock { $0 })")
    }
}
