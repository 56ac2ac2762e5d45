/// A UTC instant: whole seconds since the Unix epoch plus a sub-second part.
///
/// The ledger, the wire format and the credential expiry all work in UTC, so this type
/// deliberately knows nothing about time zones. Ordering compares seconds, then nanoseconds.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Seconds since 1970-01-01T00:00:00Z.
    public var seconds: Int64
    /// Sub-second part, 0 ..< 1_000_000_000.
    public var nanoseconds: Int32

    public init(seconds: Int64, nanoseconds: Int32 = 0) {
        precondition(nanoseconds >= 0 && nanoseconds < 1_000_000_000, "nanoseconds out of range")
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// The instant at `date` and the given time of day, UTC.
    public init(_ date: CivilDate, hour: Int = 0, minute: Int = 0, second: Int = 0, nanoseconds: Int32 = 0) {
        let days = Int64(date.daysSinceEpoch)
        self.init(seconds: days * 86_400 + Int64(hour * 3600 + minute * 60 + second), nanoseconds: nanoseconds)
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool {
        a.seconds != b.seconds ? a.seconds < b.seconds : a.nanoseconds < b.nanoseconds
    }

    /// The UTC calendar date of this instant.
    public var date: CivilDate { CivilDate(daysSinceEpoch: Int(seconds.floorDiv(86_400))) }

    /// Seconds since midnight UTC, 0 ..< 86400.
    public var secondOfDay: Int { Int(seconds.floorMod(86_400)) }

    /// This instant moved by whole seconds.
    public func adding(seconds delta: Int64) -> Timestamp {
        Timestamp(seconds: seconds + delta, nanoseconds: nanoseconds)
    }

    /// RFC 3339 text, see ``RFC3339/format(_:)``.
    public var description: String { RFC3339.format(self) }
}

extension Int64 {
    @inlinable func floorDiv(_ d: Int64) -> Int64 {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }

    @inlinable func floorMod(_ d: Int64) -> Int64 { self - floorDiv(d) * d }
}
