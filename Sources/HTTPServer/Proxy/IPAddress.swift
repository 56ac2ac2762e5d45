import Glibc

/// An IPv4 or IPv6 address as its network-order bytes (4 or 16). An IPv4-mapped IPv6 address
/// (`::ffff:192.0.2.7`) is the IPv4 address it carries, as the kernel reports either for one peer.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// The address of `bytes` (4 or 16 of them), nil otherwise.
    public init?(bytes: [UInt8]) {
        switch bytes.count {
        case 4: self.bytes = bytes
        case 16:
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
                self.bytes = Array(bytes[12..<16])
            } else {
                self.bytes = bytes
            }
        default: return nil
        }
    }

    /// An address literal: dotted IPv4 (`192.0.2.7`) or IPv6 without brackets or zone (`2001:db8::1`).
    public init?(_ text: some StringProtocol) {
        let string = String(text)
        // inet_pton accepts exactly the literal forms (no octal, no short IPv4, no zone).
        guard !string.isEmpty, string.utf8.count <= 45, !string.contains("%") else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, string, &v4) == 1 {
            self.init(bytes: withUnsafeBytes(of: &v4) { Array($0) })
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, string, &v6) == 1 else { return nil }
        self.init(bytes: withUnsafeBytes(of: &v6) { Array($0) })
    }

    public var isIPv4: Bool { bytes.count == 4 }

    /// The address as text: dotted IPv4, or IPv6 in its RFC 5952 form.
    public var description: String {
        var out = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        bytes.withUnsafeBytes { raw in
            _ = inet_ntop(isIPv4 ? AF_INET : AF_INET6, raw.baseAddress, &out, socklen_t(out.count))
        }
        return out.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// How per-address limits count this address: an IPv4 address as itself, an IPv6 address by
    /// its /64 (`2001:db8:1:2::/64`), since one host is handed a whole /64.
    public var limitKey: String {
        guard !isIPv4 else { return description }
        var prefix = bytes
        for i in 8..<16 { prefix[i] = 0 }
        return IPAddress(bytes: prefix)!.description + "/64"
    }
}
