import Foundation
import HTTPServer
import Logging

/// A fixed set of threads for the work the event loops must not do: SQLite writes and any read
/// that may wait, BBS signing, the stores' APIs. Bounded, so a flood of requests queues at most
/// `capacity` jobs and the rest are refused at once instead of piling up memory; and fair, so
/// one key (the gateway uses the peer address) queues at most `perKeyCapacity` of them and
/// cannot fill the queue for everyone else (issue 8).
///
/// `@unchecked Sendable`: the queue (`jobs`, `head`, `queuedPerKey`) is touched only while
/// holding `condition`, which the workers wait on; the rest is set in `init` and never changes.
public final class WorkerPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [(key: String?, job: @Sendable () -> Void)] = []
    private var head = 0
    private var queuedPerKey: [String: Int] = [:]
    private let capacity: Int
    private let perKeyCapacity: Int
    private var threads: [Thread] = []

    /// `count` threads sharing a queue of at most `capacity` waiting jobs, at most
    /// `perKeyCapacity` (default an eighth of `capacity`) of them under one key.
    public init(threads count: Int, capacity: Int, perKeyCapacity: Int? = nil) {
        self.capacity = capacity
        self.perKeyCapacity = max(1, perKeyCapacity ?? capacity / 8)
        for i in 0..<max(1, count) {
            let thread = Thread { [unowned self] in
                nameCurrentThread("worker-\(i)")
                self.run()
            }
            thread.name = "worker-\(i)"
            thread.stackSize = 1 << 20
            threads.append(thread)
            thread.start()
        }
    }

    /// Queues `job` under `key`; false when the queue, or `key`'s share of it, is full (the
    /// caller answers "busy"). A nil key counts only against the whole queue. The job runs
    /// under the submitter's ``RequestID``, so what it logs names the request.
    public func submit(key: String? = nil, _ job: @escaping @Sendable () -> Void) -> Bool {
        let requestID = RequestID.current
        condition.lock()
        defer { condition.unlock() }
        guard jobs.count - head < capacity else { return false }
        if let key {
            let queued = queuedPerKey[key, default: 0]
            guard queued < perKeyCapacity else { return false }
            queuedPerKey[key] = queued + 1
        }
        jobs.append((key, { RequestID.$current.withValue(requestID, operation: job) }))
        condition.signal()
        return true
    }

    private func run() {
        while true {
            condition.lock()
            while head == jobs.count { condition.wait() }
            let (key, job) = jobs[head]
            head += 1
            if let key {
                if let n = queuedPerKey[key], n > 1 { queuedPerKey[key] = n - 1 } else { queuedPerKey[key] = nil }
            }
            if head > 1024, head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job()
        }
    }
}
