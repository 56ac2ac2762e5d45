import Dispatch
import Synchronization

/// Report lines that may come once per request, through a ``RepeatThrottle`` per level: the
/// first of a kind is written, the repeats are summarised with their count once per window
/// (by ``flush()``, which ``startFlushing()`` runs on a timer).
public final class CalmLog: Sendable {
    private struct State {
        var throttle: RepeatThrottle
        var levels: [String: LogLine.Level] = [:]
        var flushing = false
    }

    private let state: Mutex<State>
    private let clock: @Sendable () -> Double
    private let write: @Sendable (LogLine.Level, String, Int?) -> Void

    /// `write` gets the level, the message and, for a summary, the count of lines it stands for.
    public init(window: Double = 10, clock: @escaping @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 },
                write: @escaping @Sendable (LogLine.Level, String, Int?) -> Void) {
        state = Mutex(State(throttle: RepeatThrottle(window: window)))
        self.clock = clock
        self.write = write
    }

    /// Writes `message`, or counts it when a line of its kind (``RepeatThrottle/kind(of:)``,
    /// per level) was written within the window.
    public func report(_ level: LogLine.Level, _ message: String) {
        let kind = "\(level.rawValue): \(RepeatThrottle.kind(of: message))"
        let (decision, closedLevel) = state.withLock { s in
            s.levels[kind] = level
            return (s.throttle.record(kind, at: clock()), level)
        }
        if let closed = decision.closed { write(closedLevel, Self.summary(closed), closed.count) }
        if decision.write { write(level, message, nil) }
    }

    /// Writes the summaries whose windows have ended.
    public func flush() {
        let due = state.withLock { s in s.throttle.due(at: clock()).map { ($0, s.levels[$0.kind] ?? .warning) } }
        for (summary, level) in due { write(level, Self.summary(summary), summary.count) }
    }

    /// Runs ``flush()`` every `seconds` on a utility queue until ``stopFlushing()``.
    public func startFlushing(every seconds: Double = 1) {
        state.withLock { $0.flushing = true }
        scheduleFlush(after: seconds)
    }

    private func scheduleFlush(after seconds: Double) {
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + seconds) { [self] in
            guard state.withLock({ $0.flushing }) else { return }
            flush()
            scheduleFlush(after: seconds)
        }
    }

    /// Stops the flushing and writes what is still counted.
    public func stopFlushing() {
        let rest = state.withLock { s in
            s.flushing = false
            return s.throttle.drain(at: clock()).map { ($0, s.levels[$0.kind] ?? .warning) }
        }
        for (summary, level) in rest { write(level, Self.summary(summary), summary.count) }
    }

    /// The summary line: how many lines of the kind were not written, over how long.
    static func summary(_ s: RepeatThrottle.Summary) -> String {
        let kind = s.kind.drop { $0 != ":" }.dropFirst(2)
        return "\(s.count) more like '\(kind)' in the last \(Int(s.seconds.rounded())) s, not written one by one"
    }
}
