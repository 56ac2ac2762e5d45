import Foundation
import Synchronization

extension OutsideHTTPAnswer {
    /// The answer's `Retry-After` field as sent, if any: the one place every client reads it
    /// (Apple's holds a UNIX time in milliseconds; HTTP's own forms are read by ``RetryAfter``).
    public var retryAfterHeader: String? { headers["retry-after"] }
}

/// `Retry-After` in HTTP's own forms (RFC 9110, 10.2.3): delay-seconds, or an HTTP-date.
public enum RetryAfter {
    /// Whole seconds to wait from `now` (UNIX seconds): the delay as sent, or up to the date
    /// (at least 1, for a date already past); nil when absent or in neither form.
    public static func seconds(_ header: String?, now: Int64) -> Int64? {
        guard let header else { return nil }
        let text = header.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            return Int64(text) ?? Int64.max
        }
        guard let date = httpDate.withLock({ $0.date(from: text) }) else { return nil }
        return max(1, Int64(date.timeIntervalSince1970.rounded(.up)) - now)
    }

    /// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form HTTP senders must use.
    /// A DateFormatter is not safe to share across threads.
    private static let httpDate: Mutex<DateFormatter> = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return Mutex(formatter)
    }()
}
