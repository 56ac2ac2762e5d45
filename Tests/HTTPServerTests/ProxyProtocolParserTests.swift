@testable import HTTPServer
import Testing

/// The PROXY protocol header, v1 and v2, fed whole, byte by byte and split at every position:
/// every way gives the same verdict and leaves the same bytes after the header.
@Suite struct ProxyProtocolParserTests {
    /// The verdict and how many bytes of `bytes` the header took, feeding `chunks` in turn.
    static func feed(_ bytes: [UInt8], chunks: [Range<Int>]) -> (ProxyProtocolParser.Event, Int) {
        var parser = ProxyProtocolParser()
        var taken = 0
        for chunk in chunks {
            let (event, consumed) = Array(bytes[chunk]).withUnsafeBytes { parser.parse($0) }
            taken += consumed
            if event != .needMoreData {
                return (event, taken)
            }
            #expect(consumed == chunk.count, "needMoreData must take everything")
        }
        return (.needMoreData, taken)
    }

    /// Every way of feeding `bytes` agrees; returns the verdict and where the header ended.
    @discardableResult
    static func parseAllWays(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> (ProxyProtocolParser.Event, Int) {
        let whole = feed(bytes, chunks: [0..<bytes.count])
        let byteByByte = feed(bytes, chunks: bytes.indices.map { $0..<($0 + 1) })
        #expect(byteByByte == whole, "byte by byte: \(byteByByte), whole: \(whole)", sourceLocation: sourceLocation)
        for split in 1..<max(1, bytes.count) {
            let two = feed(bytes, chunks: [0..<split, split..<bytes.count])
            if two != whole {
                Issue.record("split at \(split): \(two), whole: \(whole)", sourceLocation: sourceLocation)
                break
            }
        }
        return whole
    }

    static let http = Array("GET / HTTP/1.1\r\nHost: t\r\n\r\n".utf8)
    static let signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]

    static func v2(command: UInt8 = 0x21, family: UInt8, body: [UInt8]) -> [UInt8] {
        signature + [command, family, UInt8(body.count >> 8), UInt8(body.count & 0xff)] + body
    }

    // MARK: version 1

    @Test func version1TCP4NamesTheSourceAndLeavesTheRequest() {
        let header = Array("PROXY TCP4 198.51.100.7 192.0.2.1 56324 443\r\n".utf8)
        let (event, consumed) = Self.parseAllWays(header + Self.http)
        #expect(event == .header(.proxied(source: IPAddress("198.51.100.7")!, sourcePort: 56324,
                                          destination: IPAddress("192.0.2.1")!, destinationPort: 443)))
        #expect(consumed == header.count)
    }

    @Test func version1TCP6AndUnknown() {
        let six = Array("PROXY TCP6 2001:db8::7 2001:db8::1 65535 0\r\n".utf8)
        #expect(Self.parseAllWays(six + Self.http).0
                == .header(.proxied(source: IPAddress("2001:db8::7")!, sourcePort: 65535, destination: IPAddress("2001:db8::1")!, destinationPort: 0)))
        let unknown = Array("PROXY UNKNOWN ffff:f...f:ffff ffff:f...f:ffff 65535 65535\r\n".utf8)
        #expect(Self.parseAllWays(unknown + Self.http) == (.header(.local), unknown.count))
        #expect(Self.parseAllWays(Array("PROXY UNKNOWN\r\n".utf8)).0 == .header(.local))
    }

    @Test(arguments: [
        "PROXY TCP4 198.51.100.7 192.0.2.1 56324 443\n",         // LF alone
        "PROXY TCP4 198.51.100.7 192.0.2.1 56324\r\n",            // a port missing
        "PROXY TCP4  198.51.100.7 192.0.2.1 56324 443\r\n",       // two spaces
        "PROXY TCP4 198.51.100.7 192.0.2.1 56324 65536\r\n",      // port too large
        "PROXY TCP4 198.51.100.7 192.0.2.1 056324 443\r\n",       // leading zero
        "PROXY TCP4 198.51.100.7 192.0.2.1 +5632 443\r\n",
        "PROXY TCP4 2001:db8::7 192.0.2.1 1 2\r\n",               // family and address disagree
        "PROXY TCP6 198.51.100.7 192.0.2.1 1 2\r\n",
        "PROXY UDP4 198.51.100.7 192.0.2.1 1 2\r\n",
        "PROXY TCP4 198.51.100.300 192.0.2.1 1 2\r\n",
        "PROXY tcp4 198.51.100.7 192.0.2.1 1 2\r\n",
    ])
    func aMalformedVersion1LineIsRefused(line: String) {
        #expect(Self.parseAllWays(Array(line.utf8) + Self.http).0 == .error(.malformedVersion1), "\(line)")
    }

    @Test func aVersion1LineWithoutCRLFWithin107BytesIsRefused() {
        let long = Array(("PROXY UNKNOWN " + String(repeating: "x", count: 200)).utf8)
        let (event, consumed) = Self.parseAllWays(long)
        #expect(event == .error(.malformedVersion1) && consumed == ProxyProtocolParser.maxVersion1Length)
        // 107 bytes with the CRLF is the longest allowed.
        let longest = Array(("PROXY UNKNOWN " + String(repeating: "x", count: 91) + "\r\n").utf8)
        #expect(longest.count == 107 && Self.parseAllWays(longest).0 == .header(.local))
    }

    // MARK: version 2

    @Test func version2IPv4AndIPv6NameTheSourceAndSkipTLVs() {
        let v4 = Self.v2(family: 0x11, body: [198, 51, 100, 7, 192, 0, 2, 1, 0xDC, 0x04, 0x01, 0xBB])
        let (event, consumed) = Self.parseAllWays(v4 + Self.http)
        #expect(event == .header(.proxied(source: IPAddress("198.51.100.7")!, sourcePort: 56324,
                                          destination: IPAddress("192.0.2.1")!, destinationPort: 443)))
        #expect(consumed == v4.count)
        var six: [UInt8] = [0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 11) + [7]
        six += [0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 11) + [1]
        six += [0x00, 0x50, 0x01, 0xBB]
        // A TLV (PP2_TYPE_AUTHORITY "example.com") after the addresses is skipped.
        let tlv: [UInt8] = [0x02, 0x00, 0x0B] + Array("example.com".utf8)
        let v6 = Self.v2(family: 0x21, body: six + tlv)
        #expect(Self.parseAllWays(v6 + Self.http)
                == (.header(.proxied(source: IPAddress("2001:db8::7")!, sourcePort: 80, destination: IPAddress("2001:db8::1")!, destinationPort: 443)),
                    v6.count))
    }

    @Test func version2LocalAndUnspecifiedAreThePeer() {
        let local = Self.v2(command: 0x20, family: 0x00, body: [])
        #expect(Self.parseAllWays(local + Self.http) == (.header(.local), 16))
        // LOCAL ignores whatever addresses it carries.
        #expect(Self.parseAllWays(Self.v2(command: 0x20, family: 0x11, body: Array(repeating: 1, count: 12))).0 == .header(.local))
        #expect(Self.parseAllWays(Self.v2(family: 0x00, body: [])).0 == .header(.local))
        #expect(Self.parseAllWays(Self.v2(family: 0x31, body: Array(repeating: 0, count: 216))).0 == .header(.local))
    }

    @Test(arguments: [
        ProxyProtocolParserTests.v2(command: 0x11, family: 0x11, body: Array(repeating: 1, count: 12)),   // version 1 in a v2 header
        ProxyProtocolParserTests.v2(command: 0x22, family: 0x11, body: Array(repeating: 1, count: 12)),   // command 2
        ProxyProtocolParserTests.v2(family: 0x12, body: Array(repeating: 1, count: 12)),                  // UDP
        ProxyProtocolParserTests.v2(family: 0x11, body: Array(repeating: 1, count: 11)),                  // too short for IPv4
        ProxyProtocolParserTests.v2(family: 0x21, body: Array(repeating: 1, count: 12)),                  // too short for IPv6
        ProxyProtocolParserTests.v2(family: 0x41, body: Array(repeating: 1, count: 12)),                  // family 4
    ])
    func aMalformedVersion2HeaderIsRefused(header: [UInt8]) {
        #expect(Self.parseAllWays(header + Self.http).0 == .error(.malformedVersion2))
    }

    @Test func aVersion2HeaderLongerThanTheCapIsRefusedOnceItsLengthIsRead() {
        let length = ProxyProtocolParser.maxVersion2Length - 16 + 1
        let header = Self.signature + [0x21, 0x11, UInt8(length >> 8), UInt8(length & 0xff)]
        #expect(Self.parseAllWays(header) == (.error(.tooLong), 16))
        let longest = Self.v2(family: 0x11, body: Array(repeating: 1, count: 12) + Array(repeating: 0, count: length - 13))
        #expect(longest.count == ProxyProtocolParser.maxVersion2Length)
        if case .header = Self.parseAllWays(longest).0 {} else { Issue.record("the longest header is refused") }
    }

    // MARK: not a header

    @Test(arguments: ["GET / HTTP/1.1\r\n", "PROXX TCP4", "proxy TCP4 1.2.3.4 1.2.3.4 1 2\r\n", "\r\n\r\n\0\r\nQUIT!", "\r\nGET"])
    func anythingElseIsRefusedAsSoonAsItDiffers(text: String) {
        let bytes = Array(text.utf8)
        let (event, consumed) = Self.parseAllWays(bytes)
        #expect(event == .error(.notAProxyHeader), "\(text)")
        // The first byte that differs from both prefixes decides.
        let agreeing = zip(bytes, bytes.first == 0x0D ? Self.signature : Array("PROXY ".utf8)).prefix { $0 == $1 }.count
        #expect(consumed == agreeing + 1, "\(text)")
    }

    @Test func anIncompleteHeaderAsksForMore() {
        #expect(Self.parseAllWays(Array("PROXY TCP4 198.51".utf8)).0 == .needMoreData)
        #expect(Self.parseAllWays(Array(Self.signature.prefix(7))).0 == .needMoreData)
        #expect(Self.parseAllWays(Self.signature + [0x21, 0x11, 0, 12, 1, 2, 3]).0 == .needMoreData)
    }
}
