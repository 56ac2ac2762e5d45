import Foundation
import Glibc

/// The exclusive lock a running `serve` holds on its data directory: `flock` on
/// `badge-service.lock` inside it, which holds the owner's pid. The kernel drops the lock when
/// the process exits, however it exits, so a stale file never blocks a start.
public final class DataDirectoryLock: Sendable {
    /// The lock file's name inside the data directory.
    public static let fileName = "badge-service.lock"
    /// The lock file's path.
    public let path: String
    private let descriptor: Int32

    /// Takes the lock on `directory` (which must exist), or fails in one line naming the directory
    /// and the pid of the process that holds it, or the lock file when it is a symbolic link.
    public init(directory: String) throws {
        let path = (directory as NSString).appendingPathComponent(Self.fileName)
        // Never through a symbolic link: truncating and writing the pid would clobber its target.
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            if errno == ELOOP { throw CommandFailure("lock file \(path) is a symbolic link: remove it (serve makes its own)") }
            throw CommandFailure("cannot open lock file \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let holder = Self.readPID(fd)
            close(fd)
            if code == EWOULDBLOCK {
                throw CommandFailure("data directory \(directory) is in use by another badge-service serve"
                    + (holder.map { " (pid \($0))" } ?? "") + " holding \(path)")
            }
            throw CommandFailure("cannot lock \(path): \(String(cString: strerror(code)))")
        }
        let pid = Array("\(getpid())\n".utf8)
        guard ftruncate(fd, 0) == 0, pwrite(fd, pid, pid.count, 0) == pid.count else {
            let code = errno
            close(fd)
            throw CommandFailure("cannot write lock file \(path): \(String(cString: strerror(code)))")
        }
        self.path = path
        descriptor = fd
    }

    deinit { close(descriptor) }

    private static func readPID(_ fd: Int32) -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = pread(fd, &bytes, bytes.count, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: bytes[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
