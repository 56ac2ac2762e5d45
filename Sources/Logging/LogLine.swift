import Glibc
import JSON

/// One log line: a JSON object `{"ts":…,"level":…,"message":…, fields…}` ending in a newline.
/// Every line the service writes, operator messages and access lines alike, has this shape.
public struct LogLine {
    /// How much a line matters to an operator.
    public enum Level: String, Sendable {
        case info, warning, error
    }

    private var object = JSONObjectBuilder()

    /// A line stamped `time` (by default now: wall clock, UTC, milliseconds) with `level` and
    /// `message`, and the id of the request being served on this thread, if any
    /// (``RequestID/current``).
    public init(_ level: Level, _ message: String, at time: LogTime = .now, requestID: RequestID? = RequestID.current) {
        object.add("ts", time.rfc3339)
        object.add("level", level.rawValue)
        object.add("message", message)
        if let requestID { object.add("requestId", requestID.text) }
    }

    /// Adds a field; nil adds nothing. Never pass secrets, codes, receipts, tokens, keys or
    /// client addresses.
    public mutating func add(_ key: String, _ value: String?) { object.add(key, value) }
    public mutating func add(_ key: String, _ value: Int) { object.add(key, value) }
    public mutating func add(_ key: String, _ value: JSONValue) { object.add(key, value) }

    /// The line's text, newline included.
    public var text: String { object.json.text() + "\n" }
}

/// A wall-clock instant with millisecond precision, as log lines print it.
public struct LogTime: Sendable, Equatable {
    /// Milliseconds since the Unix epoch.
    public let milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// The real-time clock now.
    public static var now: LogTime {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return LogTime(milliseconds: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
    }

    /// RFC 3339 in UTC with exactly three fraction digits: `2026-11-30T23:11:24.123Z`.
    public var rfc3339: String {
        var out = [UInt8]()
        out.reserveCapacity(24)
        appendRFC3339(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends ``rfc3339``'s 24 bytes to `out`, allocating nothing else (an access line per
    /// request stamps one; a digit array per field cost 8% of the cached catalog's path).
    public func appendRFC3339(to out: inout [UInt8]) {
        let (seconds, millis) = milliseconds.quotientAndRemainderFlooring(by: 1000)
        let (days, secondOfDay) = seconds.quotientAndRemainderFlooring(by: 86_400)
        let (year, month, day) = Self.civil(fromDays: days)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { text in
            var at = 0
            func put(_ value: Int64, _ width: Int) {
                var v = value
                for i in stride(from: at + width - 1, through: at, by: -1) {
                    text[i] = 0x30 + UInt8(truncatingIfNeeded: v % 10)
                    v /= 10
                }
                at += width
            }
            func mark(_ byte: UInt8) {
                text[at] = byte
                at += 1
            }
            put(year, 4); mark(0x2D); put(month, 2); mark(0x2D); put(day, 2); mark(0x54)
            put(secondOfDay / 3600, 2); mark(0x3A); put(secondOfDay / 60 % 60, 2); mark(0x3A)
            put(secondOfDay % 60, 2); mark(0x2E); put(millis, 3); mark(0x5A)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: text[0..<at]))
        }
    }

    /// Proleptic Gregorian date of a day count from 1970-01-01 (Hinnant's `civil_from_days`).
    static func civil(fromDays z: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = z + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Int64 {
    /// Quotient and non-negative remainder (instants before 1970 stay well formed).
    fileprivate func quotientAndRemainderFlooring(by divisor: Int64) -> (Int64, Int64) {
        let (q, r) = quotientAndRemainder(dividingBy: divisor)
        return r < 0 ? (q - 1, r + divisor) : (q, r)
    }
}
