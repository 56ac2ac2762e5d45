import Foundation
import Glibc
import Locking

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
public final class LogSink: Sendable {
    private struct Buffer {
        var pending: [UInt8] = []
        var writing = false
        var flushRequested = false
        var dropped: UInt64 = 0
    }
    private let fd: Int32
    private let capacity: Int
    private let batchSize: Int
    private let interval: Double
    private let buffer = WaitableBox(Buffer())
    /// PIPE_BUF on Linux: a pipe that polls writable takes this many bytes without blocking.
    private static let atomicPipeWrite = 4096

    /// A sink writing to `fd` (not owned, never closed), holding at most `capacity` bytes.
    public init(fd: Int32, capacity: Int = 4 << 20, batchSize: Int = 64 << 10, interval: Double = 0.25) {
        self.fd = fd
        self.capacity = max(capacity, 1)
        self.batchSize = batchSize
        self.interval = interval
        _ = JoinableThread(name: "log-sink-\(fd)") { [self] in writeLoop() }
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
        let full = buffer.withLock { buffer -> Bool in
            guard buffer.pending.count + bytes.count <= capacity else {
                buffer.dropped += 1
                return false
            }
            buffer.pending.append(contentsOf: bytes)
            return buffer.pending.count >= batchSize
        }
        if full { buffer.withLockNotifyingAll { _ in } }
    }

    /// Lines dropped so far: the buffer was full, or the descriptor failed (closed pipe).
    public var droppedLines: UInt64 {
        buffer.withLock { $0.dropped }
    }

    /// Bytes waiting to be written.
    public var pendingBytes: Int {
        buffer.withLock { $0.pending.count }
    }

    /// Writes what is queued now and waits until it is out, for at most `timeout` seconds.
    /// Returns false if the descriptor did not take it in time (the lines stay queued).
    @discardableResult
    public func flush(timeout: Double = 2) -> Bool {
        buffer.withLockNotifyingAll { $0.flushRequested = true }
        return buffer.wait(until: { $0.pending.isEmpty && !$0.writing }, timeout: timeout) { buffer, done in
            buffer.flushRequested = false
            return done
        }
    }

    private func writeLoop() {
        let batchSize = self.batchSize
        while true {
            let batch = buffer.wait(until: { $0.pending.count >= batchSize || ($0.flushRequested && !$0.pending.isEmpty) }, timeout: interval) { buffer, _ in
                defer { buffer.pending = [] }
                buffer.writing = !buffer.pending.isEmpty
                return buffer.pending
            }
            if !batch.isEmpty {
                let lost = writeAll(batch)
                buffer.withLockNotifyingAll { buffer in
                    buffer.dropped += UInt64(lost)
                    buffer.writing = false
                }
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
