import BadgeCore
import Locking
import Storage

/// A store that runs `hook` once, before the first write it is asked for: what lands between a
/// command's read and its write (another instance's, another thread's).
public final class BeforeFirstWrite: BadgeStore, @unchecked Sendable {
    public let inner: any BadgeStore
    private let hook: LockedValueBox<(@Sendable () -> Void)?>

    public init(inner: any BadgeStore, hook: @escaping @Sendable () -> Void) {
        self.inner = inner
        self.hook = LockedValueBox(hook)
    }

    public func read<T>(_ body: (any StoreReader) throws -> T) throws -> T { try inner.read(body) }
    public func write<T>(_ body: (any StoreWriter) throws -> T) throws -> T {
        if let run = hook.withLock({ h -> (@Sendable () -> Void)? in defer { h = nil }; return h }) { run() }
        return try inner.write(body)
    }
    public func readiness() -> Readiness { inner.readiness() }
}
