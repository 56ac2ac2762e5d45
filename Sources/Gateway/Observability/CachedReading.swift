import Dispatch
import Synchronization

/// A value that is costly to read (a database scan, a write transaction), read at most once per
/// interval as ``RefreshSchedule`` decides and otherwise answered from the last reading.
public final class CachedReading<Value: Sendable>: Sendable {
    private struct State {
        var schedule: RefreshSchedule
        var value: Value?
    }

    private let state: Mutex<State>
    private let read: @Sendable () -> Value
    private let clock: @Sendable () -> Double
    private let background: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// `clock` is monotonic seconds; `background` runs a stale reading in `.inBackground` mode
    /// (by default on a utility queue, off every request thread).
    public init(every interval: Double, mode: RefreshSchedule.Mode, clock: @escaping @Sendable () -> Double = RefreshSchedule.monotonicSeconds,
                background: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void = { DispatchQueue.global(qos: .utility).async(execute: $0) },
                read: @escaping @Sendable () -> Value) {
        state = Mutex(State(schedule: RefreshSchedule(interval: interval, mode: mode)))
        self.read = read
        self.clock = clock
        self.background = background
    }

    /// The cached value, or a fresh one when the schedule says this caller reads.
    public func current() -> Value {
        let (step, cached) = state.withLock { s in (s.schedule.next(at: clock()), s.value) }
        switch step {
        case .read:
            return take()
        case .readInBackground:
            background { [self] in _ = take() }
            if let cached { return cached }
            return take()
        case .cached:
            if let cached { return cached }
            return take()
        }
    }

    /// Seconds since the last reading ended, nil before the first.
    public var age: Double? { state.withLock { $0.schedule.age(at: clock()) } }

    private func take() -> Value {
        let value = read()
        state.withLock { s in
            s.value = value
            s.schedule.finished(at: clock())
        }
        return value
    }
}
