import Foundation
import Glibc

/// A file-system failure in one line: what was attempted, on which path, and the system's
/// reason (`cannot read /etc/x.ini: No such file or directory`), never a Foundation dump.
public struct FileSystemError: Error, Equatable, CustomStringConvertible {
    /// "read", "create", "write", …
    public let action: String
    public let path: String
    public let reason: String

    public init(_ action: String, path: String, reason: String) {
        self.action = action
        self.path = path
        self.reason = reason
    }

    /// From `errno` after a failed system call.
    public init(_ action: String, path: String, errno code: Int32) {
        self.init(action, path: path, reason: String(cString: strerror(code)))
    }

    /// From a Foundation error: the path it names (else `path`) and the system's reason under it.
    public init(_ action: String, path: String, _ error: any Error) {
        let ns = error as NSError
        let named = ns.userInfo[NSFilePathErrorKey] as? String ?? (ns.userInfo[NSURLErrorKey] as? URL)?.path
        self.init(action, path: named ?? path, reason: Self.reason(error))
    }

    public var description: String { "cannot \(action) \(path): \(reason)" }

    /// The system's words for a Foundation file error: its POSIX error when it carries one.
    public static func reason(_ error: any Error) -> String {
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))) }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        guard ns.domain == NSCocoaErrorDomain else { return String(describing: error) }
        switch CocoaError.Code(rawValue: ns.code) {
        case .fileNoSuchFile, .fileReadNoSuchFile: return String(cString: strerror(ENOENT))
        case .fileReadNoPermission, .fileWriteNoPermission: return String(cString: strerror(EACCES))
        case .fileWriteFileExists: return String(cString: strerror(EEXIST))
        case .fileWriteVolumeReadOnly: return String(cString: strerror(EROFS))
        case .fileWriteOutOfSpace: return String(cString: strerror(ENOSPC))
        case .fileReadInapplicableStringEncoding, .fileWriteInapplicableStringEncoding: return "not UTF-8 text"
        case .fileReadCorruptFile: return "unreadable contents"
        case .fileReadTooLarge: return "too large"
        case .fileWriteUnknown: return "cannot write"
        case .fileReadUnknown: return "cannot read"
        default: return "file system error \(ns.code)"
        }
    }

    /// Whether `error` is a Foundation file error this type can put in one line.
    static func isFoundationFileError(_ error: any Error) -> Bool {
        let ns = error as NSError
        return ns.domain == NSCocoaErrorDomain || ns.domain == NSPOSIXErrorDomain
    }
}

/// Small reads with the system's reason on failure.
enum FileSystem {
    /// The whole of a regular file (a directory or device is refused with a reason).
    static func read(_ path: String) -> Result<[UInt8], FileSystemError> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(FileSystemError("read", path: path, errno: errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(FileSystemError("read", path: path, errno: errno)) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            return .failure(FileSystemError("read", path: path, reason: info.st_mode & S_IFMT == S_IFDIR ? "is a directory" : "not a regular file"))
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(FileSystemError("read", path: path, errno: errno))
            }
            if n == 0 { return .success(bytes) }
            bytes += buffer[0..<n]
        }
    }

    /// Makes the directory `path` with `mode`, and its missing parents when `parents` (as
    /// `mkdir -p`); an existing directory is no error.
    static func makeDirectory(_ path: String, mode: mode_t, parents: Bool) -> Result<Void, FileSystemError> {
        if parents {
            var prefix = path.hasPrefix("/") ? "/" : ""
            for component in path.split(separator: "/").dropLast() {
                prefix += component + "/"
                if mkdir(prefix, mode) != 0 && errno != EEXIST { return .failure(FileSystemError("create", path: prefix, errno: errno)) }
            }
        }
        if mkdir(path, mode) == 0 { return .success(()) }
        let code = errno
        var info = stat()
        if code == EEXIST, stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { return .success(()) }
        return .failure(FileSystemError("create", path: path, errno: code))
    }

    /// Replaces `path` with `bytes` in one step (a temporary file beside it, then rename), the
    /// new file readable by the owner only.
    static func writeAtomically(_ path: String, _ bytes: [UInt8]) -> Result<Void, FileSystemError> {
        let temporary = path + ".tmp"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return .failure(FileSystemError("write", path: temporary, errno: errno)) }
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let code = errno
                close(fd)
                unlink(temporary)
                return .failure(FileSystemError("write", path: temporary, errno: code))
            }
            written += n
        }
        let synced = fsync(fd) == 0 ? 0 : errno
        close(fd)
        guard synced == 0 else { unlink(temporary); return .failure(FileSystemError("write", path: temporary, errno: synced)) }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            return .failure(FileSystemError("replace", path: path, errno: code))
        }
        return .success(())
    }

    /// The permission bits of `path` and who outside this service may read it (nil: only the
    /// service and the file's owner, or it cannot be looked at, which the read that follows reports).
    static func outsideReaders(_ path: String) -> (mode: String, readers: SecretFileAccess.Reader)? {
        guard let access = SecretFileAccess(path: path),
              let reader = access.outsideReader(for: .current) else { return nil }
        return (String(access.mode & 0o777, radix: 8).leftPadded(to: 4), reader)
    }

    /// Refuses a secret file someone outside this service's user and groups may read rather
    /// than using it: the operator must notice. `what` names it as the error line does
    /// (`[apple] private_key`).
    static func refuseShared(_ path: String, naming what: String) throws {
        if let (mode, reader) = outsideReaders(path) {
            throw CommandFailure("\(what) \(path) has mode \(mode): readable by \(reader.phrase); \(reader.fix)")
        }
    }

    /// A UTF-8 text file.
    static func readText(_ path: String) -> Result<String, FileSystemError> {
        read(path).flatMap { bytes in
            guard let text = String(validating: bytes, as: UTF8.self) else {
                return .failure(FileSystemError("read", path: path, reason: "not UTF-8 text"))
            }
            return .success(text)
        }
    }
}
