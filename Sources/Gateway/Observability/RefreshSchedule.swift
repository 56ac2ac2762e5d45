import Dispatch

/// When a cached reading is taken again: at most once per `interval` (counted from the end of the
/// last reading), one reading at a time, and, in `.inBackground` mode, never on the caller's
/// path once a first value exists. A pure value: the caller brings the time.
public struct RefreshSchedule: Sendable, Equatable {
    /// Who takes a stale reading: the caller that found it stale, or a background job while the
    /// caller goes on with the cached value.
    public enum Mode: Sendable, Equatable { case onCaller, inBackground }

    /// What the caller does now.
    public enum Step: Sendable, Equatable {
        /// Read now, on this thread, and answer with what was read.
        case read
        /// Start a reading in the background and answer with the cached value.
        case readInBackground
        /// Answer with the cached value.
        case cached
    }

    public let interval: Double
    public let mode: Mode
    private var lastFinished: Double?
    private var reading = false

    public init(interval: Double, mode: Mode) {
        self.interval = interval
        self.mode = mode
    }

    /// The step at `now` (seconds on a monotonic clock); a `.read` or `.readInBackground` must be
    /// followed by ``finished(at:)``.
    public mutating func next(at now: Double) -> Step {
        guard let lastFinished else {
            // Nothing to answer with yet: every caller reads until the first reading lands.
            reading = true
            return .read
        }
        if reading || now - lastFinished < interval { return .cached }
        reading = true
        return mode == .inBackground ? .readInBackground : .read
    }

    /// A reading ended at `now`; its value is the cached one from here.
    public mutating func finished(at now: Double) {
        reading = false
        lastFinished = max(lastFinished ?? now, now)
    }

    /// Seconds since the last reading ended, nil before the first.
    public func age(at now: Double) -> Double? { lastFinished.map { max(0, now - $0) } }

    /// Seconds on the monotonic clock (unaffected by changes of the wall clock).
    @Sendable public static func monotonicSeconds() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }
}
