import Locking

/// Writes that share one transaction and so one commit: one sync of the log for all of them.
///
/// With `synchronous = FULL` every commit waits for the disk (about a millisecond here), and
/// one writer connection serialises them, so writes alone would top out at one per sync. When
/// another write is already waiting for the writer, the writer leaves its transaction open
/// for it; the last write of the group commits for everyone. Each write is a savepoint of its
/// own, so one that throws is undone alone, and none returns before the group's commit has
/// landed (or failed): an answer is never given for a write that is not durable.
///
final class CommitGroup: Sendable {
    private struct State {
        var size = 0
        var outcome: Result<Void, any Error>?
    }
    private let state = WaitableBox(State())

    /// Counts one more write run in the group, whatever its result; returns the group's size.
    func add() -> Int {
        state.withLock { state in
            state.size += 1
            return state.size
        }
    }

    /// Records how the group's transaction ended and wakes its members.
    func finish(_ result: Result<Void, any Error>) {
        state.withLockNotifyingAll { $0.outcome = result }
    }

    /// Waits for the group's transaction to end: committed, or why not.
    func ended() -> Result<Void, any Error> {
        state.wait(until: { $0.outcome != nil }, then: { $0.outcome! })
    }
}

/// The transaction the group's writes left open, and whether it may take another write.
enum CommitGroupPolicy {
    /// Writes a group takes at most: a bound on how long its first write waits for the commit.
    static let maximumSize = 32

    /// Whether the write that just ran leaves the transaction open for the next one rather
    /// than committing: only when a write is waiting for the writer and the group has room.
    static func handsOver(groupSize: Int, waitingWriters: Int) -> Bool {
        waitingWriters > 0 && groupSize < maximumSize
    }
}
