/// When the write-ahead log is checkpointed, decided after each commit from the log's size and
/// from what the last checkpoint achieved. A value without I/O (``WALCheckpointer`` runs it).
///
/// SQLite starts the log over only when a write begins with every frame already copied into the
/// database file. A passive checkpoint in the background copies the frames present when it
/// began; under writes that never pause, more arrive while it runs, so it never catches up on
/// its own and the log grows without bound. So once a background checkpoint has copied the bulk,
/// the writer copies the few frames left right after its commit (a catch-up, bounded by
/// `catchUpFrames`), and its next write starts the log over.
package struct CheckpointSchedule: Equatable {
    /// What to do after a commit.
    package enum Step: Equatable {
        case nothing
        /// Start a passive checkpoint off the writer.
        case background
        /// Checkpoint on the writer now: what is left after a background checkpoint.
        case catchUp
    }

    /// Log frames past which the log is checkpointed.
    package let threshold: Int32
    /// Frames left after a background checkpoint that the writer copies itself.
    package var catchUpFrames: Int32 { max(1, threshold / 4) }
    /// Frames the log must grow by before another background checkpoint of the same log: a
    /// checkpoint that a long read kept from copying everything is not retried at every commit.
    package var regrowthFrames: Int32 { max(1, threshold / 4) }
    /// Log frames past which the writer catches up however much is left, so the log stays
    /// bounded even when writes outpace the background checkpoints.
    package var ceilingFrames: Int32 { threshold.multipliedReportingOverflow(by: 4).overflow ? .max : threshold * 4 }

    package private(set) var backgroundRunning = false
    /// The log's size when the last checkpoint of this log ended (or was started, if it failed).
    private var logSeen: Int32?
    /// Frames the last background checkpoint left copied; nil until one finished.
    private var copied: Int32?
    private var caughtUp = false

    package init(threshold: Int32) {
        self.threshold = max(1, threshold)
    }

    /// The step after a commit that left `walFrames` frames in the log.
    package mutating func committed(walFrames: Int32) -> Step {
        if let seen = logSeen, walFrames < seen {
            // The log started over since the last checkpoint: a new cycle.
            logSeen = nil
            copied = nil
            caughtUp = false
        }
        guard walFrames >= threshold, !backgroundRunning else { return .nothing }
        if let copied, !caughtUp, walFrames - copied <= catchUpFrames || walFrames >= ceilingFrames {
            caughtUp = true
            return .catchUp
        }
        if logSeen.map({ walFrames - $0 >= regrowthFrames }) ?? true {
            backgroundRunning = true
            logSeen = walFrames
            return .background
        }
        return .nothing
    }

    /// A background checkpoint ended: the log held `logFrames` frames and `copiedFrames` of them
    /// are in the database file (nil, or SQLite's -1, when it failed).
    package mutating func backgroundFinished(logFrames: Int32?, copiedFrames: Int32?) {
        backgroundRunning = false
        if let logFrames, let copiedFrames, logFrames >= 0, copiedFrames >= 0 {
            logSeen = logFrames
            copied = copiedFrames
            caughtUp = false
        }
    }

    /// The writer's catch-up ended with the log at `logFrames` frames. When it copied every
    /// frame the next write starts the log over; when a read kept it from that, the next
    /// background checkpoint waits for the log to grow.
    package mutating func caughtUp(logFrames: Int32?) {
        if let logFrames { logSeen = logFrames }
    }
}
