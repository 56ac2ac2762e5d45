import Glibc

/// IMF-fixdate (RFC 9110 §5.6.7), e.g. `Sun, 06 Nov 1994 08:49:37 GMT`, formatted without
/// Foundation (no DateFormatter, no locale): 29 ASCII bytes.
package enum HTTPDate {
    private static let days: [String] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months: [String] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                           "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The IMF-fixdate of a Unix time in seconds.
    package static func format(unixSeconds: Int) -> [UInt8] {
        var time = time_t(unixSeconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        var out: [UInt8] = []
        out.reserveCapacity(29)
        out += days[Int(parts.tm_wday)].utf8
        out += ", ".utf8
        appendTwoDigits(Int(parts.tm_mday), to: &out)
        out.append(0x20)
        out += months[Int(parts.tm_mon)].utf8
        out.append(0x20)
        let year = Int(parts.tm_year) + 1900
        appendTwoDigits(year / 100, to: &out)
        appendTwoDigits(year % 100, to: &out)
        out.append(0x20)
        appendTwoDigits(Int(parts.tm_hour), to: &out)
        out.append(UInt8(ascii: ":"))
        appendTwoDigits(Int(parts.tm_min), to: &out)
        out.append(UInt8(ascii: ":"))
        appendTwoDigits(Int(parts.tm_sec), to: &out)
        out += " GMT".utf8
        return out
    }

    private static func appendTwoDigits(_ value: Int, to out: inout [UInt8]) {
        out.append(UInt8(0x30 + value / 10 % 10))
        out.append(UInt8(0x30 + value % 10))
    }
}
