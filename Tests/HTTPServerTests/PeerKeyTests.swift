import Glibc
@testable import HTTPServer
import Testing

/// How per-address limits count a peer: an IPv4 address as is, an IPv6 address by its /64.
@Suite struct PeerKeyTests {
    func key(_ text: String) -> String {
        if text.contains(":") {
            var a = sockaddr_in6()
            a.sin6_family = sa_family_t(AF_INET6)
            a.sin6_port = UInt16(443).bigEndian
            #expect(inet_pton(AF_INET6, text, &a.sin6_addr) == 1, "\(text)")
            return withUnsafePointer(to: &a) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Socket.peerKey($0, length: socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        #expect(inet_pton(AF_INET, text, &a.sin_addr) == 1, "\(text)")
        return withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Socket.peerKey($0, length: socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    @Test func anIPv6HostIsOnePeerWhateverItsLowBits() {
        #expect(key("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64")
        #expect(key("2001:db8:1:2:ffff:ffff:ffff:ffff") == "2001:db8:1:2::/64")
        #expect(key("2001:db8:1:3::1") == "2001:db8:1:3::/64")
        #expect(key("::1") == "::/64")
    }

    @Test func anIPv4AddressIsItselfAlsoMappedIntoIPv6() {
        #expect(key("192.0.2.7") == "192.0.2.7")
        #expect(key("::ffff:192.0.2.7") == "192.0.2.7")
        #expect(key("192.0.2.8") != key("192.0.2.7"))
    }
}
