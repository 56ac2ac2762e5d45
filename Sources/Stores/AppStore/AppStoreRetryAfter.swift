import BadgeCore

/// Apple's `Retry-After` on the App Store Server API: a UNIX time in milliseconds.
enum AppStoreRetryAfter {
    /// The longest wait passed on: a wait past a path's hour is Apple's to ask for, but a client is
    /// never told to wait longer than a day because an answer said so.
    static let maxSeconds: Int64 = 86_400

    /// Whole seconds from `now` to the time in `header` (rounded up, 1 … `maxSeconds`); nil when
    /// absent or not a number of milliseconds.
    static func seconds(_ header: String?, now: Timestamp) -> Int64? {
        guard let header else { return nil }
        var text = Substring(header)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        guard let ms = Int64(text) else { return nil }
        // Divided before rounding up: `ms + 999` overflows near Int64.max.
        let at = ms / 1000 + (ms % 1000 > 0 ? 1 : 0)
        return min(max(1, at.subtractingReportingOverflow(now.seconds).partialValue), maxSeconds)
    }
}
