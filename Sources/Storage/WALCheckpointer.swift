import CSQLite
import Foundation
import Locking

/// Checkpoints the write-ahead log off the request path.
///
/// SQLite's automatic checkpoint runs inside the COMMIT that crosses 1,000 WAL pages, on the
/// writer and under the write lock, so that one request (and every write queued behind it)
/// waits for the database file to be written and synced: the stall seen at a million
/// purchases (issue 17). The writer's hook only notes the log's size instead, and past
/// `pages` a passive checkpoint runs on a queue of its own, on a connection of its own,
/// beside the writer and the readers (a passive checkpoint never waits for either).
///
/// `@unchecked Sendable`: its mutable state is inside `state`; `queue` is serial.
final class WALCheckpointer: @unchecked Sendable {
    let path: String
    let pages: Int32
    private let busyTimeoutMilliseconds: Int32
    private let queue = DispatchQueue(label: "badge-service.wal-checkpoint", qos: .utility)
    private let state = LockedValueBox(State())

    private struct State {
        var scheduled = false
        var stopped = false
        var completed = 0
    }

    init(path: String, pages: Int32, busyTimeoutMilliseconds: Int32) {
        self.path = path
        self.pages = max(1, pages)
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
    }

    /// Checkpoints run so far (each may have copied all, some or none of the log).
    var completed: Int { state.withLock { $0.completed } }

    /// Called by the writer's WAL hook after each commit, with the pages now in the log.
    func committed(walPages: Int32) {
        guard walPages >= pages else { return }
        let schedule = state.withLock { s -> Bool in
            guard !s.scheduled, !s.stopped else { return false }
            s.scheduled = true
            return true
        }
        if schedule { queue.async { self.checkpoint() } }
    }

    /// No checkpoint starts after this returns, and none is running (before shutdown's own).
    func stop() {
        state.withLock { $0.stopped = true }
        queue.sync {}
    }

    private func checkpoint() {
        defer { state.withLock { $0.scheduled = false } }
        guard !state.withLock({ $0.stopped }) else { return }
        // Opened for each checkpoint (one per ~4 MB of log), so no connection stays open to keep
        // shutdown from taking the database out of WAL mode.
        do {
            let conn = try SQLiteConnection(path: path, readOnly: false, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
            try conn.checkpointPassive()
            state.withLock { $0.completed += 1 }
        } catch {
            // Nothing is lost: the log keeps the commits, and the next commit past the
            // threshold tries again.
        }
    }
}
