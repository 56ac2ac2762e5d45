import CSanitizerHooks
import Synchronization

/// A value shared between threads, reachable only while holding its lock: the standard
/// `Mutex` in a class, so it can be shared by reference and stored where a `~Copyable`
/// value cannot.
public final class LockedValueBox<Value: Sendable>: Sendable {
    @usableFromInline let mutex: Mutex<Value>

    /// A box holding `value`.
    public init(_ value: Value) { mutex = Mutex(value) }

    /// Runs `body` with exclusive access to the value; keep it short and never block in it.
    @inlinable
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try mutex.withLock { value in
            // ThreadSanitizer cannot see the Mutex itself (atomics and futex calls in an
            // uninstrumented library): these mark the lock's order for it, and cost a branch elsewhere.
            let address = Unmanaged.passUnretained(self).toOpaque()
            badge_sanitizer_acquire(address)
            defer { badge_sanitizer_release(address) }
            return try body(&value)
        }
    }
}
