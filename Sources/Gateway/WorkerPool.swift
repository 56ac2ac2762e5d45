import Foundation
import Logging

/// A fixed set of threads for the work the event loops must not do: signature checks,
/// SQLite transactions and BBS signing. Bounded, so a flood of requests queues at most
/// `capacity` jobs and the rest are refused at once instead of piling up memory.
///
/// `@unchecked Sendable`: the queue (`jobs`, `head`) is touched only while holding `condition`,
/// which the workers wait on; `threads` and `capacity` are set in `init` and never change.
public final class WorkerPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    private let capacity: Int
    private var threads: [Thread] = []

    /// `count` threads sharing a queue of at most `capacity` waiting jobs.
    public init(threads count: Int, capacity: Int) {
        self.capacity = capacity
        for i in 0..<max(1, count) {
            let thread = Thread { [unowned self] in self.run() }
            thread.name = "worker-\(i)"
            thread.stackSize = 1 << 20
            threads.append(thread)
            thread.start()
        }
    }

    /// Queues `job`; false when the queue is full (the caller answers "busy"). The job runs
    /// under the submitter's ``RequestID``, so what it logs names the request.
    public func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let requestID = RequestID.current
        condition.lock()
        defer { condition.unlock() }
        guard jobs.count - head < capacity else { return false }
        jobs.append { RequestID.$current.withValue(requestID, operation: job) }
        condition.signal()
        return true
    }

    private func run() {
        while true {
            condition.lock()
            while head == jobs.count { condition.wait() }
            let job = jobs[head]
            head += 1
            if head > 1024, head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job()
        }
    }
}
