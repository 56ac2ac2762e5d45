@testable import HTTPServer
import Testing

/// Who a request is from behind trusted proxies (``ClientAddress``), and the ranges that say
/// whom to trust (``TrustedProxies``).
@Suite struct ClientAddressTests {
    static let proxies = try! TrustedProxies(parsing: "10.0.0.0/8, 192.0.2.1, 2001:db8::/48")
    static let peer = IPAddress("10.0.0.5")!

    func client(_ fields: [(String, String)], peer: IPAddress = peer, trusted: TrustedProxies = proxies) -> String {
        var headers = HTTPHeaders()
        for (name, value) in fields { headers.add(name: name, value: value) }
        return ClientAddress.resolve(peer: peer, headers: headers, trusted: trusted).description
    }

    // MARK: trust

    @Test func anUntrustedPeersHeadersAreIgnored() {
        let outsider = IPAddress("203.0.113.9")!
        #expect(client([("X-Forwarded-For", "198.51.100.7")], peer: outsider) == "203.0.113.9")
        #expect(client([("Forwarded", "for=198.51.100.7")], peer: outsider) == "203.0.113.9")
        // Nobody is trusted by default, not even loopback.
        #expect(client([("X-Forwarded-For", "198.51.100.7")], peer: IPAddress("127.0.0.1")!, trusted: .none) == "127.0.0.1")
    }

    @Test func aTrustedPeerWithoutTheFieldsIsTheClient() {
        #expect(client([]) == "10.0.0.5")
        #expect(client([("X-Forwarded-For", "")]) == "10.0.0.5")
        #expect(client([("X-Real-IP", "198.51.100.7")]) == "10.0.0.5")
    }

    // MARK: X-Forwarded-For

    @Test func theRightMostUntrustedAddressIsTheClient() {
        #expect(client([("X-Forwarded-For", "198.51.100.7")]) == "198.51.100.7")
        // A client cannot choose its address by sending the field itself: the proxy appends the real one.
        #expect(client([("X-Forwarded-For", "1.2.3.4, 198.51.100.7")]) == "198.51.100.7")
        // Trusted hops are skipped, however many.
        #expect(client([("X-Forwarded-For", "1.2.3.4, 198.51.100.7, 10.1.1.1, 192.0.2.1")]) == "198.51.100.7")
        // Several field lines are one list, in order.
        #expect(client([("X-Forwarded-For", "1.2.3.4"), ("X-Forwarded-For", "198.51.100.7, 10.9.9.9")]) == "198.51.100.7")
        #expect(client([("X-Forwarded-For", " 198.51.100.7 ,\t10.9.9.9 ")]) == "198.51.100.7")
    }

    @Test func whenEveryAddressIsTrustedTheLeftMostIs() {
        #expect(client([("X-Forwarded-For", "10.1.1.1, 10.2.2.2")]) == "10.1.1.1")
        #expect(client([("X-Forwarded-For", "192.0.2.1")]) == "192.0.2.1")
    }

    @Test func ipv6AndPortsInXForwardedFor() {
        #expect(client([("X-Forwarded-For", "2001:db8:1::7")]) == "2001:db8:1::7")
        #expect(client([("X-Forwarded-For", "[2001:db8:1::7]:4711")]) == "2001:db8:1::7")
        #expect(client([("X-Forwarded-For", "198.51.100.7:4711")]) == "198.51.100.7")
        #expect(client([("X-Forwarded-For", "::ffff:198.51.100.7")]) == "198.51.100.7")
        // 2001:db8::/48 is trusted here.
        #expect(client([("X-Forwarded-For", "2001:db8:1::7, 2001:db8:0:1::1")]) == "2001:db8:1::7")
        #expect(ClientAddress.resolve(peer: Self.peer, headers: ["X-Forwarded-For": "2001:db8:1:2:3::7"], trusted: Self.proxies).limitKey
                == "2001:db8:1:2::/64")
    }

    @Test func unknownInXForwardedForStopsTheWalkAtTheHopThatReportedIt() {
        #expect(client([("X-Forwarded-For", "198.51.100.7, unknown")]) == "10.0.0.5")
        #expect(client([("X-Forwarded-For", "198.51.100.7, unknown, 10.3.3.3")]) == "10.3.3.3")
        #expect(client([("X-Forwarded-For", "unknown, 198.51.100.7")]) == "198.51.100.7")
    }

    @Test(arguments: ["not-an-address", "198.51.100.7, evil", "198.51.100.256", "198.51.100.7:", "198.51.100.7:123456",
                      "[198.51.100.7]", "2001:db8::1:80]", "[2001:db8::1", "[2001:db8::1]80", "_hidden", "1.2.3", "fe80::1%eth0",
                      "198.51.100.7 10.0.0.1"])
    func aMalformedXForwardedForIsThePeer(value: String) {
        #expect(client([("X-Forwarded-For", value)]) == "10.0.0.5", "\(value)")
    }

    // MARK: Forwarded

    @Test func forwardedForIsReadAsRFC7239Says() {
        #expect(client([("Forwarded", "for=198.51.100.7")]) == "198.51.100.7")
        #expect(client([("Forwarded", "For=198.51.100.7;proto=https;by=10.0.0.5;host=example.com")]) == "198.51.100.7")
        #expect(client([("Forwarded", "proto=https;for=\"198.51.100.7:4711\"")]) == "198.51.100.7")
        #expect(client([("Forwarded", "for=\"[2001:db8:cafe::17]:4711\"")]) == "2001:db8:cafe::17")
        #expect(client([("Forwarded", "for=\"[2001:db8:cafe::17]\"")]) == "2001:db8:cafe::17")
        #expect(client([("Forwarded", "for=1.2.3.4, for=198.51.100.7;by=x, for=10.1.1.1")]) == "198.51.100.7")
        #expect(client([("Forwarded", "for=1.2.3.4"), ("Forwarded", "for=198.51.100.7")]) == "198.51.100.7")
        // A comma or semicolon inside a quoted value is not a separator.
        #expect(client([("Forwarded", "for=198.51.100.7;host=\"a,b;c\\\"d\"")]) == "198.51.100.7")
        #expect(client([("Forwarded", "for=10.1.1.1, for=10.2.2.2")]) == "10.1.1.1")
        // Empty list elements are no hops.
        #expect(client([("Forwarded", "for=198.51.100.7, ,for=10.1.1.1,")]) == "198.51.100.7")
        // Empty pairs are allowed too (`*( ";" [ forwarded-pair ] )`).
        #expect(client([("Forwarded", "for=198.51.100.7;;proto=http;")]) == "198.51.100.7")
    }

    @Test func forwardedWinsOverXForwardedFor() {
        #expect(client([("X-Forwarded-For", "1.2.3.4"), ("Forwarded", "for=198.51.100.7")]) == "198.51.100.7")
        // ... also when malformed: the peer, not the other field.
        #expect(client([("X-Forwarded-For", "1.2.3.4"), ("Forwarded", "for=[oops")]) == "10.0.0.5")
    }

    @Test func unknownObfuscatedOrAbsentForStopsTheWalkAtTheHopThatReportedIt() {
        #expect(client([("Forwarded", "for=unknown")]) == "10.0.0.5")
        #expect(client([("Forwarded", "for=_hidden")]) == "10.0.0.5")
        #expect(client([("Forwarded", "for=\"_hidden:_port\"")]) == "10.0.0.5")
        #expect(client([("Forwarded", "for=198.51.100.7, for=_hidden")]) == "10.0.0.5")
        #expect(client([("Forwarded", "for=198.51.100.7, for=_hidden, for=10.3.3.3")]) == "10.3.3.3")
        #expect(client([("Forwarded", "for=198.51.100.7, proto=https")]) == "10.0.0.5")
        #expect(client([("Forwarded", "for=unknown, for=198.51.100.7")]) == "198.51.100.7")
    }

    @Test(arguments: ["for=2001:db8::1", "for=[2001:db8::1]", "for=198.51.100.7:4711", "for=\"198.51.100.7", "for=",
                      "for=198.51.100.7;for=1.2.3.4", "for 198.51.100.7", "=198.51.100.7", "for=\"[198.51.100.7]\"",
                      "for=198.51.100.7 junk", "for=\"_\"", "for=\"_a b\"", "for=\"198.51.100.7:_\"", "for=\"198.51.100.7:99999x\"",
                      "for=a\u{7F}", "for=\"198.51.100.7\\\u{01}\""])
    func aMalformedForwardedIsThePeer(value: String) {
        #expect(client([("Forwarded", value)]) == "10.0.0.5", "\(value)")
    }

    // MARK: the ranges

    @Test func rangesMatchByPrefix() throws {
        let t = try TrustedProxies(parsing: "127.0.0.1,10.0.0.0/8 , 172.16.0.0/12,::1, fd00::/8, 0.0.0.0/0")
        #expect(t.description == "127.0.0.1/32, 10.0.0.0/8, 172.16.0.0/12, ::1/128, fd00::/8, 0.0.0.0/0")
        let narrow = try TrustedProxies(parsing: "172.16.0.0/12, fd00::/8, ::1")
        #expect(narrow.contains(IPAddress("172.31.255.255")!))
        #expect(!narrow.contains(IPAddress("172.32.0.0")!))
        #expect(narrow.contains(IPAddress("fdff::1")!))
        #expect(!narrow.contains(IPAddress("fe00::1")!))
        #expect(narrow.contains(IPAddress("::1")!))
        #expect(!narrow.contains(IPAddress("::2")!))
        // An IPv4 peer seen through an IPv6 socket is the IPv4 address.
        #expect(try TrustedProxies(parsing: "192.0.2.0/24").contains(IPAddress(bytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 9])!))
        // Families never match each other, not even 0.0.0.0/0 an IPv6 address.
        #expect(!(try TrustedProxies(parsing: "0.0.0.0/0")).contains(IPAddress("2001:db8::1")!))
        #expect(try TrustedProxies(parsing: "::/0").contains(IPAddress("2001:db8::1")!))
        #expect(TrustedProxies.none.isEmpty && !TrustedProxies.none.contains(IPAddress("127.0.0.1")!))
    }

    @Test(arguments: [
        ("10.0.0.0/33", 1, "has a prefix length outside 0...32"),
        ("::1, ::/129", 2, "has a prefix length outside 0...128"),
        ("10.0.0.1/8", 1, "has bits set past its prefix (did you mean 10.0.0.0/8?)"),
        ("127.0.0.1,,::1", 2, "is empty"),
        ("", 1, "is empty"),
        ("localhost", 1, "is not an IPv4 or IPv6 address (with an optional /prefix)"),
        ("10.0.0.0/", 1, "has a prefix length outside 0...32"),
        ("10.0.0.0/+8", 1, "has a prefix length outside 0...32"),
        ("10/8", 1, "is not an IPv4 or IPv6 address (with an optional /prefix)"),
        ("fe80::1%eth0", 1, "is not an IPv4 or IPv6 address (with an optional /prefix)"),
    ])
    func aBadEntryIsNamed(text: String, entry: Int, reason: String) {
        #expect(throws: TrustedProxiesError.self) { try TrustedProxies(parsing: text) }
        do throws(TrustedProxiesError) {
            _ = try TrustedProxies(parsing: text)
        } catch {
            #expect(error.entry == entry && error.reason == reason, "\(error)")
        }
    }
}
