import Glibc

/// The time source of a connection state machine: monotonic nanoseconds for deadlines and
/// the current `Date` header value for responses. Injected so tests can drive time.
package protocol HTTPConnectionClock {
    /// Monotonic time in nanoseconds (only differences matter).
    var nanoseconds: UInt64 { get }
    /// Appends the current time as an IMF-fixdate to `buffer`.
    func appendDate(to buffer: inout [UInt8])
}

/// The real clock of an event loop: CLOCK_MONOTONIC and the `Date` value, both read once per
/// loop iteration (`tick()`) rather than per request — deadlines have the sweep's granularity
/// anyway, and `Date` has one-second resolution. Used only on its loop's thread.
package final class SystemConnectionClock: HTTPConnectionClock {
    private var now: UInt64
    private var cachedSecond = -1
    private var cachedDate: [UInt8] = []

    package init() {
        now = Self.monotonicNanoseconds()
        tick()
    }

    /// Reads the clocks; the loop calls this after every epoll_wait.
    package func tick() {
        now = Self.monotonicNanoseconds()
        var wall = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        let second = Int(wall.tv_sec)
        if second != cachedSecond {
            cachedSecond = second
            cachedDate = HTTPDate.format(unixSeconds: second)
        }
    }

    package var nanoseconds: UInt64 { now }

    package func appendDate(to buffer: inout [UInt8]) {
        buffer.append(contentsOf: cachedDate)
    }

    /// CLOCK_MONOTONIC in nanoseconds.
    package static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }
}
