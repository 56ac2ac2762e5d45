import JSON
import Logging

/// One JSON line per response: time (UTC, milliseconds), level, request id, method, path,
/// route, RPC command, HTTP status, protocol result code, duration. Never bodies, queries,
/// headers, client addresses, keys, codes or receipts — only what is listed here.
///
/// Lines go to `write`, normally a ``LogSink`` on standard output, which buffers them and never
/// blocks the caller (lines it cannot hold are dropped and counted).
public struct AccessLog: Sendable {
    private let write: @Sendable ([UInt8]) -> Void

    /// An access log handing each line to `write`.
    public init(write: @escaping @Sendable (String) -> Void) {
        self.write = { write(String(decoding: $0, as: UTF8.self)) }
    }

    /// An access log on `sink`.
    public init(sink: LogSink) {
        write = { sink.append(bytes: $0) }
    }

    /// Logs one response. `route`, `command` and `result` are the service's own words, never
    /// client-supplied text; `path` is the request's path without its query.
    ///
    /// The line is the one ``LogLine`` would make (same members, order, escaping and numbers),
    /// written straight into bytes: building it as a `JSONValue` and serialising that cost a
    /// fifth of the cached catalog's path (issue 17's profile).
    public func record(requestID: RequestID, method: String?, path: String?, route: String, command: String?,
                       status: Int, result: String?, seconds: Double?, at time: LogTime = .now) {
        var line: [UInt8] = []
        line.reserveCapacity(256)
        line += #"{"ts":""#.utf8
        time.appendRFC3339(to: &line)
        line += #"","level":"info","message":"request","requestId":"#.utf8
        JSONSerializer.append(string: requestID.text, to: &line)
        func member(_ key: StaticString, _ value: String?) {
            guard let value else { return }
            line.append(UInt8(ascii: ","))
            line.append(contentsOf: UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
            JSONSerializer.append(string: value, to: &line)
        }
        member(#""method":"#, method)
        member(#""path":"#, path)
        member(#""route":"#, route)
        member(#""command":"#, command)
        line += #","status":"#.utf8
        JSONSerializer.append(number: JSONNumber(status), to: &line)
        member(#""result":"#, result)
        // Whole microseconds: finer digits would only be the clock's noise.
        if let seconds {
            line += #","durationMs":"#.utf8
            JSONSerializer.append(number: JSONNumber((seconds * 1_000_000).rounded() / 1_000), to: &line)
        }
        line += "}\n".utf8
        write(line)
    }
}
