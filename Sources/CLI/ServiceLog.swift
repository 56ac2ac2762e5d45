import Foundation
import JSON

/// Operator-facing messages (startup, warnings, failures) as JSON lines on standard error.
public enum ServiceLog {
    public static func info(_ message: String) { emit("info", message) }
    public static func warning(_ message: String) { emit("warning", message) }
    public static func error(_ message: String) { emit("error", message) }

    private static func emit(_ level: String, _ message: String) {
        let line: JSONValue = ["level": .string(level), "message": .string(message)]
        FileHandle.standardError.write(Data(line.serialized() + [0x0A]))
    }
}
