import Foundation
import Glibc
import JSON
import Logging
import Testing

@Suite struct LogLineTests {
    @Test(arguments: [(Int64(0), "1970-01-01T00:00:00.000Z"), (1_764_544_284_123, "2025-11-30T23:11:24.123Z"),
                      (1_709_164_800_999, "2024-02-29T00:00:00.999Z"), (951_782_400_000, "2000-02-29T00:00:00.000Z"),
                      (-1, "1969-12-31T23:59:59.999Z"), (253_402_300_799_999, "9999-12-31T23:59:59.999Z")])
    func timestampsAreRFC3339UTCWithMilliseconds(_ milliseconds: Int64, _ text: String) {
        #expect(LogTime(milliseconds: milliseconds).rfc3339 == text)
    }

    @Test func aLineCarriesTheRequestBeingServed() throws {
        let id = RequestID()
        let plain = try JSONValue.parse(LogLine(.warning, "disk \"full\"").text)
        #expect(plain["level"] == "warning" && plain["message"] == "disk \"full\"" && plain["requestId"] == nil)
        let within = RequestID.$current.withValue(id) { LogLine(.error, "boom").text }
        #expect(within.hasSuffix("}\n") && within.split(separator: "\n").count == 1)
        let object = try JSONValue.parse(within)
        #expect(object["requestId"] == .string(id.text))
        let ts = try #require(object["ts"]?.stringValue)
        #expect(ts.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression) != nil, "\(ts)")
    }

    @Test func requestIDsAre128RandomBitsInHex() {
        let ids = (0..<2000).map { _ in RequestID().text }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy { "0123456789abcdef".contains($0) } })
        // every hex digit position varies (nothing fixed, nothing counted)
        for position in 0..<32 {
            let digits = Set(ids.map { $0[$0.index($0.startIndex, offsetBy: position)] })
            #expect(digits.count > 8, "position \(position)")
        }
    }
}

// No suite time limit: it counts from when the test is scheduled, so a test pool held by other
// suites failed these tests without their code running. Each test bounds its own waits instead.
@Suite struct LogSinkTests {
    /// A pipe: (read end, write end).
    func pipeEnds() throws -> (Int32, Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw POSIXError(.EMFILE) }
        return (fds[0], fds[1])
    }

    @Test func anUnreadPipeDropsAndCountsLinesInsteadOfBlocking() throws {
        let (reader, writer) = try pipeEnds()
        defer { close(reader) }
        let sink = LogSink(fd: writer, capacity: 64 * 1024, batchSize: 4096, interval: 0.01)
        let total = 20_000
        // Nobody reads: the pipe (64 KiB) and the buffer (64 KiB) fill; append must still return.
        let appended = DispatchSemaphore(value: 0)
        Thread {
            for i in 0..<total {
                sink.append(#"{"n":\#(i),"pad":"\#(String(repeating: "x", count: 80))"}"# + "\n")
            }
            appended.signal()
        }.start()
        try #require(appended.wait(timeout: .now() + 30) == .success, "append blocked on an unread pipe")
        #expect(sink.droppedLines > 0)
        #expect(!sink.flush(timeout: 0.2))
        // Now a reader drains the pipe: what was buffered comes out, in order, as whole lines.
        let drained = PipeReader(reader)
        #expect(sink.flush(timeout: 10))
        close(writer)
        let lines = drained.waitForEOF().split(separator: "\n")
        #expect(UInt64(lines.count) + sink.droppedLines == UInt64(total), "\(lines.count) + \(sink.droppedLines)")
        var last = -1
        for line in lines {
            let n = Int(try #require(try JSONValue.parse(String(line))["n"]?.numberValue?.value))
            #expect(n > last)
            last = n
        }
    }

    @Test func aReadSinkLosesNothing() throws {
        let (reader, writer) = try pipeEnds()
        defer { close(reader) }
        let drained = PipeReader(reader)
        let sink = LogSink(fd: writer, capacity: 1 << 20, interval: 0.01)
        for i in 0..<5000 { sink.append("line \(i)\n") }
        #expect(sink.flush(timeout: 10))
        close(writer)
        #expect(drained.waitForEOF() == (0..<5000).map { "line \($0)\n" }.joined())
        #expect(sink.droppedLines == 0)
    }
}

/// Reads a descriptor to its end on a thread of its own.
final class PipeReader: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var bytes: [UInt8] = []   // written by the thread only, read after `done`

    init(_ fd: Int32) {
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                bytes += buffer[0..<n]
            }
            done.signal()
        }.start()
    }

    /// Everything read, once the write end is closed (at most 30 s).
    func waitForEOF() -> String {
        _ = done.wait(timeout: .now() + 30)
        return String(decoding: bytes, as: UTF8.self)
    }
}
