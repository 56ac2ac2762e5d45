import Glibc

/// A failure of a socket call, with the call's name and errno.
public struct HTTPServerError: Error, CustomStringConvertible {
    /// What failed (e.g. `bind 127.0.0.1:8080`).
    public let operation: String
    /// The errno value.
    public let code: Int32

    public var description: String { "\(operation): \(String(cString: strerror(code)))" }
}

/// Thin helpers over the socket calls the server makes.
enum Socket {
    /// A non-blocking listening socket on host:port. Without SO_REUSEPORT, so that a second
    /// process on the same address fails at bind instead of silently taking half the traffic.
    static func listen(host: String, port: Int, backlog: Int32 = 1024) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let info = result else {
            throw HTTPServerError(operation: "resolve \(host): \(String(cString: gai_strerror(status)))", code: EINVAL)
        }
        defer { freeaddrinfo(result) }
        let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Linux.nonBlocking | Linux.closeOnExec, 0)
        guard fd >= 0 else { throw HTTPServerError(operation: "socket", code: errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let code = errno
            close(fd)
            throw HTTPServerError(operation: "bind \(host):\(port)", code: code)
        }
        guard Glibc.listen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            throw HTTPServerError(operation: "listen \(host):\(port)", code: code)
        }
        return fd
    }

    /// Another descriptor (close-on-exec) for the same socket, so each loop can own and close one.
    static func duplicate(_ fd: Int32) throws -> Int32 {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw HTTPServerError(operation: "dup listening socket", code: errno) }
        return copy
    }

    /// The local port a socket is bound to.
    static func boundPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &length) }
        }
        let family = storage.ss_family
        return withUnsafePointer(to: &storage) { pointer in
            if family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    /// The peer as every per-address limit counts it: an IPv4 address as is (also one mapped into
    /// IPv6), and an IPv6 address by its /64 (`2001:db8:1:2::/64`), the block one subscriber is
    /// routed, so a host cannot pass for 2^64 peers by changing its low bits.
    static func peerKey(_ address: UnsafePointer<sockaddr>, length: socklen_t) -> String {
        peerAddress(address, length: length)?.limitKey ?? numericHost(address, length: length)
    }

    /// The IP address of an IPv4 or IPv6 peer (an IPv4-mapped one as IPv4), nil for another family.
    static func peerAddress(_ address: UnsafePointer<sockaddr>, length: socklen_t) -> IPAddress? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET where Int(length) >= MemoryLayout<sockaddr_in>.size:
            var v4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
            return IPAddress(bytes: withUnsafeBytes(of: &v4.sin_addr) { Array($0) })
        case AF_INET6 where Int(length) >= MemoryLayout<sockaddr_in6>.size:
            var v6 = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee }
            return IPAddress(bytes: withUnsafeBytes(of: &v6.sin6_addr) { Array($0) })
        default:
            return nil
        }
    }

    /// The numeric host of a peer address (no port).
    static func numericHost(_ address: UnsafePointer<sockaddr>, length: socklen_t) -> String {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { return "" }
        return host.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }
}
