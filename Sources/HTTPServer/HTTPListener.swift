import Glibc
import Locking

/// A listening TCP socket bound before the server that will accept on it exists, so a caller can
/// fail on a taken or forbidden address before it makes any state (a data directory, a key).
/// ``HTTPServer/start(on:)`` takes it over; one never handed to a server is closed with it.
public final class HTTPListener: Sendable {
    /// The bound port: the one asked for, or the free one picked for port 0.
    public let port: Int
    /// The descriptor until a server takes it (nil after).
    private let descriptor: LockedValueBox<Int32?>

    /// Binds and listens on `host:port` now (`HTTPServerError` naming the address on failure).
    public init(host: String, port: Int) throws {
        let fd = try Socket.listen(host: host, port: port)
        self.port = Socket.boundPort(fd)
        descriptor = LockedValueBox(fd)
    }

    /// The descriptor, once: the server that takes it owns (and closes) it from then on.
    func take() throws -> Int32 {
        guard let fd = descriptor.withLock({ fd in defer { fd = nil }; return fd }) else {
            throw HTTPServerError(operation: "start: listener already taken by a server", code: EALREADY)
        }
        return fd
    }

    deinit {
        if let fd = descriptor.withLock({ $0 }) { close(fd) }
    }
}
