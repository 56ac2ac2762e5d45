import CSQLite
import Foundation
import Locking

/// Checkpoints the write-ahead log, mostly off the request path.
///
/// SQLite's automatic checkpoint runs inside the COMMIT that crosses 1,000 WAL pages, on the
/// writer and under the write lock, so that one request (and every write queued behind it)
/// waits for the database file to be written and synced: the stall seen at a million
/// purchases (issue 17). The writer's hook notes the log's size instead, and past the
/// threshold a passive checkpoint runs on a queue of its own, on a connection of its own,
/// beside the writer and the readers (a passive checkpoint never waits for either). What
/// arrived meanwhile the writer copies after a later commit, so the log can start over
/// (``CheckpointSchedule`` decides which). Its mutable state is inside `state`; `queue` is serial.
final class WALCheckpointer: Sendable {
    let path: String
    private let busyTimeoutMilliseconds: Int32
    private let queue = DispatchQueue(label: "badge-service.wal-checkpoint", qos: .utility)
    private let state: LockedValueBox<State>

    private struct State {
        var schedule: CheckpointSchedule
        var stopped = false
        var completed = 0
        var catchUps = 0
    }

    init(path: String, pages: Int32, busyTimeoutMilliseconds: Int32) {
        self.path = path
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        state = LockedValueBox(State(schedule: CheckpointSchedule(threshold: pages)))
    }

    /// Background checkpoints run so far (each may have copied all, some or none of the log).
    var completed: Int { state.withLock { $0.completed } }
    /// Checkpoints the writer ran after its commit to copy what a background one left.
    var catchUps: Int { state.withLock { $0.catchUps } }
    /// Whether a background checkpoint is under way.
    var running: Bool { state.withLock { $0.schedule.backgroundRunning } }

    /// Called by the writer's WAL hook after each commit, on the writer's connection `writer`,
    /// with the frames now in the log.
    func committed(walPages: Int32, writer: OpaquePointer) {
        let step = state.withLock { s -> CheckpointSchedule.Step in
            s.stopped ? .nothing : s.schedule.committed(walFrames: walPages)
        }
        switch step {
        case .nothing:
            return
        case .background:
            queue.async { self.checkpoint() }
        case .catchUp:
            // Few frames (at most ``CheckpointSchedule/catchUpFrames`` unless the log passed its
            // ceiling), on the writer and after its commit; a failure leaves the log as it was,
            // and a later background checkpoint tries again.
            let result = SQLiteConnection.checkpointPassive(writer)
            state.withLock {
                $0.catchUps += 1
                $0.schedule.caughtUp(logFrames: result?.log)
            }
        }
    }

    /// No checkpoint starts after this returns, and none is running (before shutdown's own).
    func stop() {
        state.withLock { $0.stopped = true }
        queue.sync {}
    }

    private func checkpoint() {
        var result: (log: Int32, copied: Int32)?
        defer {
            state.withLock {
                $0.schedule.backgroundFinished(logFrames: result?.log, copiedFrames: result?.copied)
                if result != nil { $0.completed += 1 }
            }
        }
        guard !state.withLock({ $0.stopped }) else { return }
        // Opened for each checkpoint (one per ~16 MB of log), so no connection stays open to keep
        // shutdown from taking the database out of WAL mode.
        do {
            let conn = try SQLiteConnection(path: path, readOnly: false, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
            result = SQLiteConnection.checkpointPassive(conn.handle)
        } catch {
            // Nothing is lost: the log keeps the commits, and a later commit tries again.
        }
    }
}
