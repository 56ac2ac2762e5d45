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

    private static func emit(_ level: LogLine.Level, _ message: String) {
        FileHandle.standardError.write(Data(LogLine(level, message).text.utf8))
    }
}
