import Foundation
import Glibc

/// A raw TCP exchange with the service, for what URLSession cannot send: `Expect`, an
/// absolute-form target, a chosen source address, a connection held open.
final class RawSocket {
    let fd: Int32

    /// Connects to 127.0.0.1:`port`, from `source` when given (any 127.0.0.0/8 address works on Linux).
    init(port: Int, source: String? = nil, receiveTimeout: Double = 5) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServiceProcess.Failure("socket: \(String(cString: strerror(errno)))") }
        var timeout = timeval(tv_sec: Int(receiveTimeout), tv_usec: Int((receiveTimeout - Double(Int(receiveTimeout))) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if let source {
            var local = Self.address(source, port: 0)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            // No close before throwing: fd is set, so deinit closes it; closing twice could close
            // a descriptor another test opened in between.
            guard bound == 0 else { throw ServiceProcess.Failure("bind \(source): \(String(cString: strerror(errno)))") }
        }
        var remote = Self.address("127.0.0.1", port: port)
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw ServiceProcess.Failure("connect: \(String(cString: strerror(errno)))") }
    }

    deinit { close(fd) }

    static func address(_ host: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        return address
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return }
            offset += n
        }
    }

    /// What arrives until the peer closes, `limit` bytes arrive, or the receive timeout passes.
    func receive(atLeast limit: Int = 1 << 20, until marker: String? = nil) -> String {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while out.count < limit {
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { break }
            out += buffer[0..<n]
            if let marker, String(decoding: out, as: UTF8.self).contains(marker) { break }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The status of the first response line in `text`, or nil.
    static func status(_ text: String) -> Int? {
        guard text.hasPrefix("HTTP/1.1 ") else { return nil }
        return Int(text.dropFirst(9).prefix(3))
    }
}
