import Foundation
import Glibc

/// One HTTP/1.1 exchange over a plain TCP connection (IPv4 or IPv6): connect, send the request
/// with `Connection: close`, read a response delimited by `Content-Length` or by the close,
/// all within one deadline and a size cap.
enum PlainHTTPClient {
    struct Response: Equatable {
        var status: Int
        /// Field names lower-cased.
        var headers: [String: String]
        var body: [UInt8]
    }

    static func exchange(host: String, port: Int, request: [UInt8], timeout: Duration, maxResponse: Int,
                         describe where_: String) throws(CommandFailure) -> Response {
        let deadline = ContinuousClock.now + timeout
        let fd = try connect(host: host, port: port, deadline: deadline, describe: where_)
        defer { close(fd) }
        var sent = 0
        while sent < request.count {
            try wait(fd, for: Int16(POLLOUT), until: deadline, describe: where_)
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw CommandFailure("cannot send to \(where_): \(String(cString: strerror(errno)))")
            }
            sent += n
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            switch ResponseParser.parse(received, complete: false) {
            case .done(let response): return response
            case .needMore: break
            case .invalid(let why): throw CommandFailure("\(where_) sent an invalid HTTP response: \(why)")
            }
            try wait(fd, for: Int16(POLLIN), until: deadline, describe: where_)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw CommandFailure("cannot read from \(where_): \(String(cString: strerror(errno)))")
            }
            if n == 0 {
                switch ResponseParser.parse(received, complete: true) {
                case .done(let response): return response
                case .needMore: throw CommandFailure("\(where_) closed the connection before a complete response")
                case .invalid(let why): throw CommandFailure("\(where_) sent an invalid HTTP response: \(why)")
                }
            }
            received += buffer[0..<n]
            guard received.count <= maxResponse else {
                throw CommandFailure("\(where_) sent a response over \(maxResponse) bytes")
            }
        }
    }

    /// A non-blocking socket connected to the first address of `host` that accepts.
    static func connect(host: String, port: Int, deadline: ContinuousClock.Instant, describe where_: String) throws(CommandFailure) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let list else { throw CommandFailure("cannot resolve \(host): \(String(cString: gai_strerror(rc)))") }
        defer { freeaddrinfo(list) }
        var lastError: Int32 = ECONNREFUSED
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let a = entry {
            entry = a.pointee.ai_next
            let fd = socket(a.pointee.ai_family, a.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                            a.pointee.ai_protocol)
            guard fd >= 0 else { lastError = errno; continue }
            if Glibc.connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 { return fd }
            guard errno == EINPROGRESS else { lastError = errno; close(fd); continue }
            do { try wait(fd, for: Int16(POLLOUT), until: deadline, describe: where_) } catch { close(fd); throw error }
            var status: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &status, &length)
            if status == 0 { return fd }
            lastError = status
            close(fd)
        }
        throw CommandFailure("cannot reach \(where_): \(String(cString: strerror(lastError)))")
    }

    static func wait(_ fd: Int32, for events: Int16, until deadline: ContinuousClock.Instant, describe where_: String) throws(CommandFailure) {
        while true {
            let left = deadline - ContinuousClock.now
            let ms = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
            guard ms > 0 else { throw CommandFailure("no answer from \(where_) in time") }
            var p = pollfd(fd: fd, events: events, revents: 0)
            let n = poll(&p, 1, Int32(min(ms, Int64(Int32.max))))
            if n > 0 { return }
            if n < 0 && errno != EINTR { throw CommandFailure("cannot wait for \(where_): \(String(cString: strerror(errno)))") }
        }
    }

    /// The request's bytes: the head with `Host` and `Connection: close`, then the body.
    static func request(method: String, target: String, authority: String, headers: [(name: String, value: String)],
                        body: [UInt8]) -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(authority)\r\nConnection: close\r\n"
        for field in headers { head += "\(field.name): \(field.value)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        return Array(head.utf8) + body
    }
}

/// Reads an HTTP/1.1 response from the bytes received so far (pure, so it is tested alone).
enum ResponseParser {
    enum Outcome: Equatable {
        case done(PlainHTTPClient.Response)
        case needMore
        case invalid(String)
    }

    /// `complete` says the connection has closed: a body without `Content-Length` ends there.
    static func parse(_ bytes: [UInt8], complete: Bool) -> Outcome {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = bytes.indices.dropLast(3).first(where: { bytes[$0..<($0 + 4)].elementsEqual(separator) }) else {
            return complete ? .invalid(bytes.isEmpty ? "no response" : "incomplete head") : .needMore
        }
        guard let head = String(validating: bytes[..<end], as: UTF8.self) else { return .invalid("head is not UTF-8") }
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]), (100...599).contains(status) else {
            return .invalid("bad status line")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { return .invalid("bad header field line") }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
        }
        let bodyStart = end + 4
        if headers["transfer-encoding"] != nil { return .invalid("chunked transfer coding is not supported") }
        if let text = headers["content-length"] {
            guard let length = Int(text), length >= 0 else { return .invalid("bad Content-Length") }
            guard bytes.count - bodyStart >= length else {
                return complete ? .invalid("body shorter than its Content-Length") : .needMore
            }
            return .done(.init(status: status, headers: headers, body: Array(bytes[bodyStart..<(bodyStart + length)])))
        }
        guard complete else { return .needMore }
        return .done(.init(status: status, headers: headers, body: Array(bytes[bodyStart...])))
    }
}
