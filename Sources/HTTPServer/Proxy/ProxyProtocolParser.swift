/// What a PROXY protocol header says about the connection.
public enum ProxyHeader: Sendable, Equatable {
    /// The proxy's own connection (v2 `LOCAL`, v1 `UNKNOWN`, an unspecified or UNIX family):
    /// the client is the TCP peer itself.
    case local
    /// A proxied TCP connection from `source`.
    case proxied(source: IPAddress, sourcePort: UInt16, destination: IPAddress, destinationPort: UInt16)
}

/// Why the bytes at the start of a connection are not a PROXY header the server accepts.
public enum ProxyProtocolError: Error, Sendable, Equatable {
    /// Neither the v1 `PROXY ` prefix nor the v2 signature.
    case notAProxyHeader
    /// A v1 line without CRLF within 107 bytes, or not `PROXY TCP4|TCP6|UNKNOWN …`.
    case malformedVersion1
    /// A v2 header with another version, command, family or transport, or too short for its addresses.
    case malformedVersion2
    /// A v2 header longer than ``ProxyProtocolParser/maxVersion2Length``.
    case tooLong
}

/// The PROXY protocol header (versions 1 and 2, haproxy's proxy-protocol.txt) at the start of a
/// connection, free of I/O: bytes in, in any pieces, one header out. Like ``HTTPRequestParser``,
/// `parse` reports how much of its input it took; what follows the header is left to the caller.
public struct ProxyProtocolParser: Sendable {
    public enum Event: Sendable, Equatable {
        case needMoreData
        case header(ProxyHeader)
        case error(ProxyProtocolError)
    }

    /// Longest v1 line, CRLF included (the protocol's own bound).
    public static let maxVersion1Length = 107
    /// Longest v2 header accepted, TLVs included: what proxies send fits in far less, and the
    /// bytes are held until the header is complete.
    public static let maxVersion2Length = 4096
    static let version1Prefix = Array("PROXY ".utf8)
    static let version2Signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]

    private var held: [UInt8] = []
    private var finished = false

    public init() {}

    /// Takes bytes of `input` up to the end of the header (or all of them while it is incomplete).
    public mutating func parse(_ input: UnsafeRawBufferPointer) -> (event: Event, consumed: Int) {
        guard !finished else { return (.error(.notAProxyHeader), 0) }
        var consumed = 0
        for byte in input {
            held.append(byte)
            consumed += 1
            if let event = step() {
                finished = true
                held = []
                return (event, consumed)
            }
        }
        return (.needMoreData, consumed)
    }

    /// The verdict once the held bytes decide it, nil while more are needed.
    private mutating func step() -> Event? {
        let n = held.count
        if n <= Self.version2Signature.count, held[...] == Self.version2Signature[0..<n] { return nil }
        if held.starts(with: Self.version2Signature) { return version2() }
        if n <= Self.version1Prefix.count { return held[...] == Self.version1Prefix[0..<n] ? nil : .error(.notAProxyHeader) }
        guard held.starts(with: Self.version1Prefix) else { return .error(.notAProxyHeader) }
        return version1()
    }

    private func version1() -> Event? {
        let n = held.count
        guard held[n - 1] == 0x0A else {
            return n >= Self.maxVersion1Length ? .error(.malformedVersion1) : nil
        }
        guard held[n - 2] == 0x0D else { return .error(.malformedVersion1) }
        let line = String(decoding: held[Self.version1Prefix.count..<(n - 2)], as: UTF8.self)
        let fields = line.split(separator: " ", omittingEmptySubsequences: false)
        if fields.first == "UNKNOWN" { return .header(.local) }
        guard fields.count == 5, fields[0] == "TCP4" || fields[0] == "TCP6",
              let source = IPAddress(fields[1]), let destination = IPAddress(fields[2]),
              let sourcePort = Self.port(fields[3]), let destinationPort = Self.port(fields[4]) else {
            return .error(.malformedVersion1)
        }
        // The family named must be the addresses' family (IPv4 mapped into IPv6 reads as IPv4).
        let v4 = fields[0] == "TCP4"
        guard v4 == !fields[1].contains(":"), v4 == !fields[2].contains(":") else { return .error(.malformedVersion1) }
        return .header(.proxied(source: source, sourcePort: sourcePort, destination: destination, destinationPort: destinationPort))
    }

    /// A decimal port, 0...65535, without a sign or leading zeros.
    static func port(_ text: Substring) -> UInt16? {
        guard (1...5).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              text == "0" || text.first != "0", let n = UInt16(text) else { return nil }
        return n
    }

    private func version2() -> Event? {
        let n = held.count
        guard n >= 16 else {
            // Version and command, then family and transport, are checked as soon as they arrive.
            if n >= 13, held[12] >> 4 != 2 || held[12] & 0x0F > 1 { return .error(.malformedVersion2) }
            return nil
        }
        let length = Int(held[14]) << 8 | Int(held[15])
        guard 16 + length <= Self.maxVersion2Length else { return .error(.tooLong) }
        guard n == 16 + length else { return nil }
        let command = held[12] & 0x0F
        let family = held[13] >> 4, transport = held[13] & 0x0F
        if command == 0 { return .header(.local) }
        switch family {
        case 0, 3:
            // Unspecified or UNIX: no address to use; the peer stands for the client.
            return transport <= 2 ? .header(.local) : .error(.malformedVersion2)
        case 1, 2:
            let size = family == 1 ? 4 : 16
            guard transport == 1, length >= 2 * size + 4 else { return .error(.malformedVersion2) }
            let body = held[16...]
            let start = body.startIndex
            guard let source = IPAddress(bytes: Array(body[start..<(start + size)])),
                  let destination = IPAddress(bytes: Array(body[(start + size)..<(start + 2 * size)])) else {
                return .error(.malformedVersion2)
            }
            let ports = start + 2 * size
            let sourcePort = UInt16(body[ports]) << 8 | UInt16(body[ports + 1])
            let destinationPort = UInt16(body[ports + 2]) << 8 | UInt16(body[ports + 3])
            return .header(.proxied(source: source, sourcePort: sourcePort, destination: destination, destinationPort: destinationPort))
        default:
            return .error(.malformedVersion2)
        }
    }
}
