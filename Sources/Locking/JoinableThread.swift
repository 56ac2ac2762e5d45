import Glibc

/// A thread of its own that can be waited for: `join` returns once its body has returned.
/// Foundation's `Thread` cannot be joined, so an owner could never know its threads are gone.
public final class JoinableThread: Sendable {
    private let handle: pthread_t
    private let joined = LockedValueBox(false)

    /// Starts `body` on a new thread named `name` (at most 15 bytes are kept) with a stack
    /// of `stackSize` bytes (the system's default when nil).
    public init(name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        let start = Unmanaged.passRetained(StartBox(name: name, body: body))
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        if let stackSize { pthread_attr_setstacksize(&attributes, max(stackSize, Int(PTHREAD_STACK_MIN))) }
        var handle = pthread_t()
        let created = pthread_create(&handle, &attributes, { argument in
            let start = Unmanaged<StartBox>.fromOpaque(argument!).takeRetainedValue()
            nameCurrentThread(start.name)
            start.body()
            return nil
        }, start.toOpaque())
        precondition(created == 0, "pthread_create failed: \(created)")
        self.handle = handle
    }

    // A thread nobody joined releases its resources itself when it ends.
    deinit {
        if !joined.withLock({ $0 }) { pthread_detach(handle) }
    }

    /// Whether the calling thread is this one.
    public var isCurrent: Bool { pthread_equal(pthread_self(), handle) != 0 }

    /// Waits until the thread's body has returned. Call it at most once per thread that may
    /// be joined, and never from the thread itself.
    public func join() {
        precondition(!isCurrent, "a thread cannot join itself")
        let first = joined.withLock { wasJoined -> Bool in
            defer { wasJoined = true }
            return !wasJoined
        }
        precondition(first, "thread joined twice")
        pthread_join(handle, nil)
    }

    private final class StartBox: Sendable {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}
