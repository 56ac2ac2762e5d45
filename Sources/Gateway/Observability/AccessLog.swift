import BadgeCore
import Foundation
import JSON
import Locking

/// One JSON line per request: time, method, path, status, command, result code, duration.
/// Never bodies, headers, keys, codes or receipts — only what is listed here.
///
/// Lines are buffered and written every `flushInterval` (or sooner when 64 KiB pile up), so a
/// busy server makes a few writes a second instead of one per request; a kill -9 can lose the
/// last interval's lines, a graceful stop loses none (`flush()`).
public final class AccessLog: Sendable {
    private let write: @Sendable (String) -> Void
    /// Lines not yet written (always empty when not `buffering`).
    private let buffer = LockedValueBox("")
    /// False when every line is written at once.
    private let buffering: Bool
    private static let flushSize = 64 * 1024

    /// Writes lines through `write` (standard output by default); a background thread flushes
    /// every `flushInterval` seconds, or never when it is nil (each line is then written at once).
    public init(write: @escaping @Sendable (String) -> Void = AccessLog.standardOutput, flushInterval: Double? = 0.25) {
        self.write = write
        buffering = flushInterval != nil
        if let flushInterval {
            let thread = Thread { [weak self] in
                while true {
                    Thread.sleep(forTimeInterval: flushInterval)
                    guard let log = self else { return }
                    log.flush()
                }
            }
            thread.name = "access-log"
            thread.start()
        }
    }

    public static let standardOutput: @Sendable (String) -> Void = { line in
        FileHandle.standardOutput.write(Data(line.utf8))
    }

    /// Writes what is buffered.
    public func flush() {
        buffer.withLock { buffer in
            if !buffer.isEmpty {
                write(buffer)
                buffer = ""
            }
        }
    }

    /// Logs one request. `command` and `result` are protocol words, never client-supplied text.
    public func record(at time: Timestamp, method: String, path: String, status: Int, command: String?, result: String?,
                       seconds: Double) {
        var entry = JSONObjectBuilder()
        entry.add("ts", RFC3339.format(time))
        entry.add("method", method)
        entry.add("path", path)
        entry.add("status", status)
        entry.add("command", command)
        entry.add("result", result)
        // Whole microseconds: finer digits would only be the clock's noise.
        entry.add("durationMs", .number(JSONNumber((seconds * 1_000_000).rounded() / 1_000)))
        let line = entry.json.text() + "\n"
        // Written under the lock, so lines never interleave or reorder.
        buffer.withLock { buffer in
            guard buffering else { return write(line) }
            buffer += line
            if buffer.utf8.count >= Self.flushSize {
                write(buffer)
                buffer = ""
            }
        }
    }
}
