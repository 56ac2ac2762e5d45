import Glibc

/// A value shared between threads, like ``LockedValueBox``, that threads can also wait on
/// until it satisfies a condition: a POSIX mutex and condition variable (on the monotonic
/// clock) around the value. `Synchronization.Mutex` has no condition variable to pair with.
public final class WaitableBox<Value> {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var value: Value

    /// A box holding `value`.
    public init(_ value: sending Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        precondition(pthread_cond_init(condition, &attributes) == 0, "pthread_cond_init failed")
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value; keep it short and never block in it.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Runs `body` with exclusive access to the value, then wakes every waiter to look again.
    public func withLockNotifyingAll<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        return try body(&value)
    }

    /// Runs `body` with exclusive access to the value, then wakes one waiter (for a change only
    /// one waiter can act on, such as one more job in a queue).
    public func withLockNotifyingOne<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_signal(condition)
            pthread_mutex_unlock(mutex)
        }
        return try body(&value)
    }

    /// Waits until `ready` holds for the value, then runs `body` with exclusive access to it
    /// (still holding the lock, so what `ready` saw is what `body` gets).
    public func wait<Result>(until ready: (Value) -> Bool,
                             then body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !ready(value) { pthread_cond_wait(condition, mutex) }
        return try body(&value)
    }

    /// Waits until `ready` holds for the value or `timeout` seconds have passed, then runs
    /// `body` with exclusive access to the value; `body` learns whether `ready` held.
    public func wait<Result>(until ready: (Value) -> Bool, timeout: Double,
                             then body: (inout Value, _ ready: Bool) throws -> Result) rethrows -> Result {
        let deadline = Self.monotonicDeadline(after: timeout)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var isReady = ready(value)
        while !isReady {
            var until = deadline
            if pthread_cond_timedwait(condition, mutex, &until) == ETIMEDOUT {
                isReady = ready(value)
                break
            }
            isReady = ready(value)
        }
        return try body(&value, isReady)
    }

    private static func monotonicDeadline(after seconds: Double) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let wait = max(0, min(seconds, 1e9))
        var secs = now.tv_sec + Int(wait)
        var nanos = now.tv_nsec + Int((wait - wait.rounded(.towardZero)) * 1e9)
        if nanos >= 1_000_000_000 {
            secs += 1
            nanos -= 1_000_000_000
        }
        return timespec(tv_sec: secs, tv_nsec: nanos)
    }
}

// The compiler cannot see that `value` is touched only between pthread_mutex_lock and unlock.
extension WaitableBox: @unchecked Sendable where Value: Sendable {}
