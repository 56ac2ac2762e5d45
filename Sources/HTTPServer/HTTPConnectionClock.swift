import Glibc

/// The time source of a connection state machine: monotonic nanoseconds for deadlines and
/// the current `Date` header value for responses. Injected so tests can drive time.
package protocol HTTPConnectionClock {
    /// Monotonic time in nanoseconds (only differences matter).
    var nanoseconds: UInt64 { get }
    /// Appends the current time as an IMF-fixdate to `buffer`.
    func appendDate(to buffer: inout [UInt8])
}

/// The real clock of an event loop: CLOCK_MONOTONIC, and a `Date` value cached per second so
/// that formatting costs nothing per response. Used only on its loop's thread.
package final class SystemConnectionClock: HTTPConnectionClock {
    private var cachedSecond = -1
    private var cachedDate: [UInt8] = []

    package init() {}

    package var nanoseconds: UInt64 { Self.monotonicNanoseconds() }

    package func appendDate(to buffer: inout [UInt8]) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let second = Int(now.tv_sec)
        if second != cachedSecond {
            cachedSecond = second
            cachedDate = HTTPDate.format(unixSeconds: second)
        }
        buffer.append(contentsOf: cachedDate)
    }

    /// CLOCK_MONOTONIC in nanoseconds.
    package static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }
}
