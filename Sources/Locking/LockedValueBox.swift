import Foundation

/// A value shared between threads, reachable only while holding its lock: the one lock
/// primitive of the package, so no type hand-rolls a lock beside the state it guards.
public final class LockedValueBox<Value> {
    @usableFromInline let lock = NSLock()
    @usableFromInline var value: Value

    /// A box holding `value`.
    public init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value; keep it short and never block in it.
    @inlinable
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

// Safe: `value` is read and written only inside `withLock`, under `lock`.
extension LockedValueBox: @unchecked Sendable where Value: Sendable {}
