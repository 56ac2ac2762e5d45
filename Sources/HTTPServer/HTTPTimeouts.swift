/// Deadlines that bound how long a connection may hold server resources.
///
/// Each is a total, not a per-read inactivity timer, so trickling one byte at a time
/// (slowloris, slow body, slow read) cannot extend it. A request's deadlines count from its
/// start: the accept of a new connection; on a kept-alive one, its first byte, which must come
/// within `idle` of the previous response. Its head must be complete `requestHead` after the
/// start (and never after the idle deadline), its body `requestBody` after the head deadline;
/// a new connection's first request is therefore complete within `requestHead + requestBody`
/// of the accept, whenever its bytes came. Deadlines are checked by a per-loop sweep every
/// `timerResolution`, so one fires at most that much late.
public struct HTTPTimeouts: Sendable, Hashable {
    /// From the start of a request to the end of its head (default 10 s).
    /// On expiry: 408 with `Connection: close`, then close (silently if nothing arrived).
    public var requestHead: Duration
    /// From the head deadline to the end of the body (default 20 s: a 64 KiB body at 3.2 KB/s).
    /// On expiry: 408 with `Connection: close`, then close.
    public var requestBody: Duration
    /// How long a kept-alive connection may wait for the first octet of its next request
    /// (default 60 s). On expiry the connection is closed silently (no 408).
    /// A new connection that sends nothing is closed after `requestHead` instead.
    public var idle: Duration
    /// How long one response may take to be written in full (default 20 s); a client that does
    /// not read is disconnected when it passes.
    public var write: Duration
    /// After a refusal or `Connection: close`, how long the server keeps reading and discarding
    /// input after its response (default 2 s), so that unread request bytes do not turn the
    /// close into a reset that destroys the response before the client reads it.
    public var linger: Duration
    /// During graceful shutdown, how long in-flight requests may take before their connections
    /// are closed anyway (default 30 s).
    public var shutdownGrace: Duration
    /// Granularity of the deadline sweep (default 100 ms).
    public var timerResolution: Duration

    /// Timeouts with the documented defaults; pass only what you want to change.
    public init(requestHead: Duration = .seconds(10), requestBody: Duration = .seconds(20),
                idle: Duration = .seconds(60), write: Duration = .seconds(20),
                linger: Duration = .seconds(2), shutdownGrace: Duration = .seconds(30),
                timerResolution: Duration = .milliseconds(100)) {
        self.requestHead = requestHead
        self.requestBody = requestBody
        self.idle = idle
        self.write = write
        self.linger = linger
        self.shutdownGrace = shutdownGrace
        self.timerResolution = timerResolution
    }
}

extension Duration {
    /// Whole nanoseconds, saturating, never negative.
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        let (sum, overflow2) = whole.addingReportingOverflow(UInt64(max(0, attoseconds) / 1_000_000_000))
        return overflow2 ? .max : sum
    }
}
