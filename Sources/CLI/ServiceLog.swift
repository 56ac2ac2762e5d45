import Foundation
import Logging

/// Operator-facing messages (startup, warnings, failures) as JSON lines on standard error, in
/// the shape of every log line (``LogLine``: UTC millisecond timestamp, level, message, and the
/// request id when a request's work logs it). Written at once: they are rare, and a failure
/// line must be out before the process exits.
public enum ServiceLog {
    public static func info(_ message: String) { emit(.info, message) }
    public static func warning(_ message: String) { emit(.warning, message) }
    public static func error(_ message: String) { emit(.error, message) }

    /// A line at `level`; `repeated` is the count a summary of lines not written stands for.
    public static func emit(_ level: LogLine.Level, _ message: String, repeated: Int? = nil) {
        // A summary stands for many requests: it names none.
        var line = repeated == nil ? LogLine(level, message) : LogLine(level, message, requestID: nil)
        if let repeated { line.add("repeated", repeated) }
        FileHandle.standardError.write(Data(line.text.utf8))
    }
}
