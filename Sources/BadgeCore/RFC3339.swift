/// RFC 3339 `date-time` text: strict syntax checking, parsing to ``Timestamp`` and the
/// one output form the protocol uses.
///
/// Output follows aeson (the upstream encoder): `YYYY-MM-DDTHH:MM:SS` with `Z`, and a
/// fraction only when non-zero, in groups of three digits. Input accepts any RFC 3339 form:
/// `T`/`t`, `Z`/`z` or a numeric offset, any fraction length, and leap second 60.
public enum RFC3339 {
    /// Whether `text` is an RFC 3339 `date-time` (as JTD's `timestamp` requires).
    public static func isValid(_ text: String) -> Bool { parse(text) != nil }

    /// Parses `text`, returning the instant it names (a leap second reads as the next
    /// second's start, the only instant a POSIX clock can represent), or nil when malformed.
    public static func parse(_ text: String) -> Timestamp? {
        // Read in place: a copy of the text into an array cost an allocation a timestamp, seven
        // a signed issueBadge (issue 17).
        var text = text
        return text.withUTF8(parse(bytes:))
    }

    private static func parse(bytes b: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in 0..<n {
                let c = b[i + k]
                guard c >= 0x30 && c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8, or other: UInt8? = nil) -> Bool {
            guard i < b.count, b[i] == c || b[i] == other else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(0x2D), let month = digits(2), expect(0x2D), let day = digits(2),
              expect(0x54, or: 0x74), let hour = digits(2), expect(0x3A), let minute = digits(2), expect(0x3A),
              let second = digits(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= CivilDate.daysIn(year: year, month: month),
              hour <= 23, minute <= 59, second <= 60
        else { return nil }
        var nanos: Int64 = 0
        if i < b.count, b[i] == 0x2E {
            i += 1
            var count = 0
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                if count < 9 { nanos = nanos * 10 + Int64(b[i] - 0x30) }
                count += 1
                i += 1
            }
            guard count > 0 else { return nil }
            for _ in count..<max(count, 9) { nanos *= 10 }
        }
        var offset = 0
        guard i < b.count else { return nil }
        if b[i] == 0x5A || b[i] == 0x7A {
            i += 1
        } else if b[i] == 0x2B || b[i] == 0x2D {
            let sign = b[i] == 0x2D ? -1 : 1
            i += 1
            guard let oh = digits(2), expect(0x3A), let om = digits(2), oh <= 23, om <= 59 else { return nil }
            offset = sign * (oh * 3600 + om * 60)
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let date = CivilDate(year: year, month: month, day: day)
        let local = Timestamp(date, hour: hour, minute: minute, second: second, nanoseconds: Int32(nanos))
        return local.adding(seconds: Int64(-offset))
    }

    /// `2026-04-14T00:00:00Z`, or `2026-04-14T00:00:00.250Z` with a fraction.
    public static func format(_ t: Timestamp) -> String {
        let s = t.secondOfDay
        var text = "\(t.date)T\(pad(s / 3600, 2)):\(pad(s / 60 % 60, 2)):\(pad(s % 60, 2))"
        if t.nanoseconds != 0 {
            var frac = pad(Int(t.nanoseconds), 9)
            while frac.hasSuffix("000") { frac.removeLast(3) }
            text += "." + frac
        }
        return text + "Z"
    }
}
