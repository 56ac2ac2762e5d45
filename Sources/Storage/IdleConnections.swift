import Locking

/// The connections of a pool that no thread is using now. A thread takes one, uses it alone,
/// and puts it back, so a connection is never used by two threads at once.
final class IdleConnections<Connection: AnyObject>: Sendable {
    // @unchecked: a connection is not Sendable, but one in this list is used by no thread at all.
    private struct Idle: @unchecked Sendable { let connection: Connection }
    private let idle = LockedValueBox<[Idle]>([])

    init() {}

    /// An idle connection, now the caller's alone; nil when none is idle.
    func take() -> Connection? { idle.withLock { $0.popLast()?.connection } }

    /// Gives back a connection the caller took or opened and no longer uses.
    func put(_ connection: Connection) { idle.withLock { $0.append(Idle(connection: connection)) } }

    /// Replaces the idle connections with `connections`, which nobody uses.
    func replace(with connections: [Connection]) { idle.withLock { $0 = connections.map(Idle.init) } }

    /// Drops every idle connection (each closes when released).
    func removeAll() { idle.withLock { $0.removeAll() } }
}
