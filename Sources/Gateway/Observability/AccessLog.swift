import Foundation
import JSON
import Logging

/// One JSON line per response: time (UTC, milliseconds), level, request id, method, path,
/// route, RPC command, HTTP status, protocol result code, duration. Never bodies, queries,
/// headers, client addresses, keys, codes or receipts — only what is listed here.
///
/// Lines go to `write`, normally a ``LogSink`` on standard output, which buffers them and never
/// blocks the caller (lines it cannot hold are dropped and counted).
public struct AccessLog: Sendable {
    private let write: @Sendable (String) -> Void

    /// An access log handing each line to `write`.
    public init(write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    /// An access log on `sink`.
    public init(sink: LogSink) {
        write = { sink.append($0) }
    }

    /// Logs one response. `route`, `command` and `result` are the service's own words, never
    /// client-supplied text; `path` is the request's path without its query.
    public func record(requestID: RequestID, method: String?, path: String?, route: String, command: String?,
                       status: Int, result: String?, seconds: Double?, at time: LogTime = .now) {
        var line = LogLine(.info, "request", at: time, requestID: requestID)
        line.add("method", method)
        line.add("path", path)
        line.add("route", route)
        line.add("command", command)
        line.add("status", status)
        line.add("result", result)
        // Whole microseconds: finer digits would only be the clock's noise.
        if let seconds { line.add("durationMs", .number(JSONNumber((seconds * 1_000_000).rounded() / 1_000))) }
        write(line.text)
    }
}
