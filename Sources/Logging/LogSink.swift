import Foundation
import Glibc

/// A bounded, asynchronous writer of log lines to a file descriptor (standard output for the
/// access log).
///
/// `append` never waits for the descriptor: it copies the line into a buffer of at most
/// `capacity` bytes under a short lock and returns. A writer thread of its own empties the
/// buffer every `interval` (sooner once `batchSize` bytes pile up). When the reader is slow or
/// gone (a pipe nobody reads), the buffer fills and new lines are dropped and counted
/// (`droppedLines`) instead of stalling the threads that serve requests.
///
/// The writer itself never blocks indefinitely either: it waits for the descriptor with `poll`
/// and writes at most `PIPE_BUF` bytes at a time, so a pipe write never blocks, and `flush`
/// (at shutdown, on reload) gives up after its timeout.
///
/// `@unchecked Sendable`: every stored variable is read and written only while holding
/// `condition`, which the writer waits on (so a `LockedValueBox` would not do).
public final class LogSink: @unchecked Sendable {
    private let fd: Int32
    private let capacity: Int
    private let batchSize: Int
    private let interval: Double
    private let condition = NSCondition()
    private var pending: [UInt8] = []
    private var writing = false
    private var flushRequested = false
    private var dropped: UInt64 = 0
    /// PIPE_BUF on Linux: a pipe that polls writable takes this many bytes without blocking.
    private static let atomicPipeWrite = 4096

    /// A sink writing to `fd` (not owned, never closed), holding at most `capacity` bytes.
    public init(fd: Int32, capacity: Int = 4 << 20, batchSize: Int = 64 << 10, interval: Double = 0.25) {
        self.fd = fd
        self.capacity = max(capacity, 1)
        self.batchSize = batchSize
        self.interval = interval
        let thread = Thread { [self] in writeLoop() }
        thread.name = "log-sink-\(fd)"
        thread.start()
    }

    /// Queues `line` (its text ends in a newline), or drops and counts it when the buffer is full.
    public func append(_ line: String) {
        var line = line
        line.withUTF8 { enqueue(UnsafeRawBufferPointer($0)) }
    }

    /// Queues one line already in UTF-8 (ending in a newline), as ``append(_:)`` does.
    public func append(bytes line: [UInt8]) {
        line.withUnsafeBytes { enqueue($0) }
    }

    private func enqueue(_ bytes: UnsafeRawBufferPointer) {
        condition.lock()
        defer { condition.unlock() }
        guard pending.count + bytes.count <= capacity else {
            dropped += 1
            return
        }
        pending.append(contentsOf: bytes)
        if pending.count >= batchSize { condition.broadcast() }
    }

    /// Lines dropped so far: the buffer was full, or the descriptor failed (closed pipe).
    public var droppedLines: UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return dropped
    }

    /// Bytes waiting to be written.
    public var pendingBytes: Int {
        condition.lock()
        defer { condition.unlock() }
        return pending.count
    }

    /// Writes what is queued now and waits until it is out, for at most `timeout` seconds.
    /// Returns false if the descriptor did not take it in time (the lines stay queued).
    @discardableResult
    public func flush(timeout: Double = 2) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        flushRequested = true
        condition.broadcast()
        while !pending.isEmpty || writing {
            if !condition.wait(until: deadline) { break }
        }
        flushRequested = false
        return pending.isEmpty && !writing
    }

    private func writeLoop() {
        while true {
            condition.lock()
            let due = Date().addingTimeInterval(interval)
            while pending.count < batchSize && !flushRequested {
                if !condition.wait(until: due) { break }
            }
            let batch = pending
            pending = []
            writing = !batch.isEmpty
            condition.unlock()
            if !batch.isEmpty {
                let lost = writeAll(batch)
                condition.lock()
                dropped += UInt64(lost)
                writing = false
                condition.broadcast()
                condition.unlock()
            }
        }
    }

    /// Writes `bytes` in pieces the descriptor accepts without blocking; returns how many lines
    /// were lost because the descriptor failed.
    private func writeAll(_ bytes: [UInt8]) -> Int {
        var offset = 0
        let failed: Bool = bytes.withUnsafeBytes { buffer in
            while offset < buffer.count {
                var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                let ready = poll(&poller, 1, 250)
                if ready < 0 && errno != EINTR { return true }
                guard ready > 0 else { continue }
                if poller.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return true }
                let n = Glibc.write(fd, buffer.baseAddress! + offset, min(buffer.count - offset, Self.atomicPipeWrite))
                if n > 0 {
                    offset += n
                } else if n < 0 && errno != EINTR && errno != EAGAIN {
                    return true
                }
            }
            return false
        }
        return failed ? bytes[offset...].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } : 0
    }
}
