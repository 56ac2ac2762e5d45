import Locking
import Logging

/// A fixed set of threads for the work the event loops must not do: SQLite writes and any read
/// that may wait, BBS signing, the stores' APIs. Bounded, so a flood of requests queues at most
/// `capacity` jobs and the rest are refused at once instead of piling up memory; and fair, so
/// one key (the gateway uses the peer address) queues at most `perKeyCapacity` of them and
/// cannot fill the queue for everyone else.
///
/// The threads hold the queue, not the pool: `shutdown` (or dropping the pool) lets them finish
/// what is queued and end; `shutdown` also waits for them.
public final class WorkerPool: Sendable {
    private let queue: WaitableBox<JobQueue>
    private let threads: [JoinableThread]
    private let joined = LockedValueBox(false)

    /// `count` threads sharing a queue of at most `capacity` waiting jobs, at most
    /// `perKeyCapacity` (default an eighth of `capacity`) of them under one key.
    public init(threads count: Int, capacity: Int, perKeyCapacity: Int? = nil) {
        let queue = WaitableBox(JobQueue(capacity: capacity, perKeyCapacity: max(1, perKeyCapacity ?? capacity / 8)))
        self.queue = queue
        threads = (0..<max(1, count)).map { i in
            JoinableThread(name: "worker-\(i)", stackSize: 1 << 20) { Self.work(queue) }
        }
    }

    deinit {
        queue.withLockNotifyingAll { $0.closed = true }
    }

    /// Queues `job` under `key`; false when the queue, or `key`'s share of it, is full, or the
    /// pool is shut down (the caller answers "busy"). A nil key counts only against the whole
    /// queue. The job runs under the submitter's ``RequestID``, so what it logs names the request.
    public func submit(key: String? = nil, _ job: @escaping @Sendable () -> Void) -> Bool {
        let requestID = RequestID.current
        let wrapped: @Sendable () -> Void = { RequestID.$current.withValue(requestID, operation: job) }
        return queue.withLockNotifyingOne { $0.push(key: key, wrapped) }
    }

    /// Refuses new jobs, lets the threads run the ones already queued, and waits until every
    /// thread has ended. Idempotent; never call it from a job (a worker cannot wait for itself).
    public func shutdown() {
        queue.withLockNotifyingAll { $0.closed = true }
        let first = joined.withLock { wasJoined -> Bool in
            defer { wasJoined = true }
            return !wasJoined
        }
        guard first else { return }
        for thread in threads { thread.join() }
    }

    private static func work(_ queue: WaitableBox<JobQueue>) {
        while let job = queue.wait(until: { $0.hasJob || $0.closed }, then: { $0.pop() }) {
            job()
        }
    }
}

/// The pool's waiting jobs, first in first out, and how many each key has queued.
struct JobQueue: Sendable {
    let capacity: Int
    let perKeyCapacity: Int
    private var jobs: [(key: String?, job: @Sendable () -> Void)] = []
    private var head = 0
    private var queuedPerKey: [String: Int] = [:]
    /// Set by shutdown: no new jobs; the threads end once the queue is empty.
    var closed = false

    init(capacity: Int, perKeyCapacity: Int) {
        self.capacity = capacity
        self.perKeyCapacity = perKeyCapacity
    }

    var hasJob: Bool { head < jobs.count }

    mutating func push(key: String?, _ job: @escaping @Sendable () -> Void) -> Bool {
        guard !closed, jobs.count - head < capacity else { return false }
        if let key {
            let queued = queuedPerKey[key, default: 0]
            guard queued < perKeyCapacity else { return false }
            queuedPerKey[key] = queued + 1
        }
        jobs.append((key, job))
        return true
    }

    /// The next job, or nil when there is none (only after shutdown do threads take nil).
    mutating func pop() -> (@Sendable () -> Void)? {
        guard head < jobs.count else { return nil }
        let (key, job) = jobs[head]
        jobs[head].job = {}
        head += 1
        if let key {
            if let n = queuedPerKey[key], n > 1 { queuedPerKey[key] = n - 1 } else { queuedPerKey[key] = nil }
        }
        if head > 1024, head * 2 > jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
        return job
    }
}
