import Storage
import Testing

/// The checkpoint schedule's rules, step by step (threshold 1,000 frames: catch-ups of up to
/// 250, a regrowth of 250, a ceiling of 4,000).
@Suite struct CheckpointScheduleTests {
    @Test func belowTheThresholdNothingRuns() {
        var s = CheckpointSchedule(threshold: 1_000)
        #expect(s.committed(walFrames: 10) == .nothing)
        #expect(s.committed(walFrames: 999) == .nothing)
        #expect(s.committed(walFrames: 1_000) == .background)
    }

    @Test func oneBackgroundCheckpointRunsAtATime() {
        var s = CheckpointSchedule(threshold: 1_000)
        #expect(s.committed(walFrames: 1_004) == .background)
        #expect(s.backgroundRunning)
        for frames in stride(from: Int32(1_008), through: 3_000, by: 4) { #expect(s.committed(walFrames: frames) == .nothing) }
    }

    /// The writer copies what arrived while the background checkpoint ran, once; the next
    /// commit finds the log started over and a new cycle begins.
    @Test func theWriterCatchesUpOnTheFewFramesLeft() {
        var s = CheckpointSchedule(threshold: 1_000)
        #expect(s.committed(walFrames: 1_004) == .background)
        #expect(s.committed(walFrames: 1_040) == .nothing)
        s.backgroundFinished(logFrames: 1_040, copiedFrames: 1_040)
        #expect(s.committed(walFrames: 1_080) == .catchUp)
        s.caughtUp(logFrames: 1_080)
        #expect(s.committed(walFrames: 1_084) == .nothing)   // a write that did not start it over
        #expect(s.committed(walFrames: 4) == .nothing)       // started over
        #expect(s.committed(walFrames: 1_000) == .background)
    }

    /// Too much left for the writer: another background checkpoint, once the log has grown
    /// by the regrowth since the last one ended.
    @Test func tooMuchLeftGoesToTheBackgroundAgain() {
        var s = CheckpointSchedule(threshold: 1_000)
        #expect(s.committed(walFrames: 1_000) == .background)
        s.backgroundFinished(logFrames: 1_300, copiedFrames: 1_000)  // a reader held 300 frames back
        #expect(s.committed(walFrames: 1_304) == .nothing)           // 304 left: more than 250
        #expect(s.committed(walFrames: 1_549) == .nothing)
        #expect(s.committed(walFrames: 1_550) == .background)
        s.backgroundFinished(logFrames: 1_560, copiedFrames: 1_560)
        #expect(s.committed(walFrames: 1_564) == .catchUp)
    }

    /// A catch-up that a read kept from finishing is not repeated at every commit; the next
    /// background checkpoint waits for the log to grow.
    @Test func aCatchUpIsTriedOncePerBackgroundCheckpoint() {
        var s = CheckpointSchedule(threshold: 1_000)
        #expect(s.committed(walFrames: 1_000) == .background)
        s.backgroundFinished(logFrames: 1_010, copiedFrames: 1_010)
        #expect(s.committed(walFrames: 1_020) == .catchUp)
        s.caughtUp(logFrames: 1_020)
        for frames in stride(from: Int32(1_024), to: 1_270, by: 4) { #expect(s.committed(walFrames: frames) == .nothing) }
        #expect(s.committed(walFrames: 1_270) == .background)
    }

    /// Past the ceiling the writer catches up however much is left: writes that outpace the
    /// background checkpoints do not grow the log without bound.
    @Test func pastTheCeilingTheWriterCatchesUpWhateverIsLeft() {
        var s = CheckpointSchedule(threshold: 1_000)
        #expect(s.ceilingFrames == 4_000)
        #expect(s.committed(walFrames: 1_000) == .background)
        s.backgroundFinished(logFrames: 1_600, copiedFrames: 1_000)
        #expect(s.committed(walFrames: 1_850) == .background)
        s.backgroundFinished(logFrames: 3_900, copiedFrames: 1_850)
        #expect(s.committed(walFrames: 3_996) == .nothing)
        #expect(s.committed(walFrames: 4_000) == .catchUp)
    }

    /// A failed background checkpoint changes nothing but lets the next one start.
    @Test func aFailedBackgroundCheckpointIsRetriedAfterRegrowth() {
        var s = CheckpointSchedule(threshold: 1_000)
        #expect(s.committed(walFrames: 1_000) == .background)
        s.backgroundFinished(logFrames: nil, copiedFrames: nil)
        #expect(!s.backgroundRunning)
        #expect(s.committed(walFrames: 1_100) == .nothing)
        #expect(s.committed(walFrames: 1_250) == .background)
        s.backgroundFinished(logFrames: -1, copiedFrames: -1)   // SQLite's "could not run"
        #expect(s.committed(walFrames: 1_300) == .nothing)
        #expect(s.committed(walFrames: 1_500) == .background)
    }

    @Test func aTinyThresholdStillMakesProgress() {
        var s = CheckpointSchedule(threshold: 1)
        #expect(s.catchUpFrames == 1 && s.regrowthFrames == 1)
        #expect(s.committed(walFrames: 2) == .background)
        s.backgroundFinished(logFrames: 3, copiedFrames: 3)
        #expect(s.committed(walFrames: 4) == .catchUp)
    }
}
