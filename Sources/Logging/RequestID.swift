import Foundation
import Locking
import Glibc

/// The id of one request: 128 bits from the system's cryptographic generator, printed as 32
/// lowercase hex digits. It is returned in `X-Request-Id` and written in the access line and in
/// every line the request's work logs, so an operator can join them; being random, it links
/// nothing else (it is never derived from the client's address, keys or headers).
public struct RequestID: Sendable, Hashable {
    /// The 32 hex digits.
    public let text: String

    /// A fresh random id.
    public init() {
        let (high, low) = RandomWords.shared.pair()
        // 32 digits written into one buffer: formatting by radix and padding cost more than
        // the random draw (issue 17's profile).
        text = String(unsafeUninitializedCapacity: 32) { buffer in
            func write(_ value: UInt64, at offset: Int) {
                for i in 0..<16 {
                    let nibble = UInt8(truncatingIfNeeded: value >> (60 - 4 * UInt64(i))) & 0x0F
                    buffer[offset + i] = nibble < 10 ? 0x30 + nibble : 0x57 + nibble
                }
            }
            write(high, at: 0)
            write(low, at: 16)
            return 32
        }
    }

    /// The request whose work runs on this thread now, if any (bound with `$current.withValue`).
    @TaskLocal public static var current: RequestID?
}

/// Words from the system's cryptographic generator (`getentropy`), drawn 4 KiB at a time: the
/// standard generator made one `getrandom` system call per word, two per request id (about 4%
/// of the cached catalog's path, issue 17's profile). The bytes are the kernel's either way.
private final class RandomWords: Sendable {
    private struct Buffer {
        var words = [UInt64](repeating: 0, count: 512)
        var next = 512

        mutating func take() -> (UInt64, UInt64) {
            if next + 2 > words.count {
                words.withUnsafeMutableBytes { buffer in
                    // getentropy fills at most 256 bytes per call.
                    for offset in stride(from: 0, to: buffer.count, by: 256) {
                        guard getentropy(buffer.baseAddress! + offset, min(256, buffer.count - offset)) == 0 else {
                            fatalError("getentropy: \(String(cString: strerror(errno)))")
                        }
                    }
                }
                next = 0
            }
            defer { next += 2 }
            return (words[next], words[next + 1])
        }
    }
    static let shared = RandomWords()
    private let buffer = LockedValueBox(Buffer())

    func pair() -> (UInt64, UInt64) {
        buffer.withLock { $0.take() }
    }
}

