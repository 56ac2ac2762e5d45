import HTTPServer
import Testing

/// Every one of the 256 octet values, in every grammar position the parser checks, against
/// sets written out here from the RFC ABNF (not from the implementation's table).
@Suite struct ByteTableTests {
    /// RFC 9110 §5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
    /// "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
    static let tchar: Set<UInt8> = Set(Array("!#$%&'*+-.^_`|~0123456789".utf8)
        + Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8))

    @Test func grammarTableMatchesTheRFCSets() {
        for byte in UInt8.min...UInt8.max {
            #expect(HTTPGrammar.isTokenChar(byte) == Self.tchar.contains(byte), "tchar \(byte)")
            // field-vchar = VCHAR / obs-text, plus SP / HTAB inside a value
            let fieldByte = (0x21...0x7E).contains(byte) || byte >= 0x80 || byte == 0x20 || byte == 0x09
            #expect(HTTPGrammar.isFieldValueByte(byte) == fieldByte, "field value \(byte)")
        }
    }

    /// A byte inside a field name: tchar continues the name, `:` ends it early (fine), whitespace
    /// before the colon is refused, everything else is not a token.
    @Test(arguments: 0...255)
    func fieldNameByte(value: Int) {
        let byte = UInt8(value)
        let bytes = latin1("GET / HTTP/1.1\r\nHost: t\r\nx") + [byte] + latin1("x: v\r\n\r\n")
        let parts = parseAllWays(bytes)
        if Self.tchar.contains(byte) || byte == UInt8(ascii: ":") {
            #expect(parts.last == .end, "byte \(value)")
        } else if byte == 0x20 || byte == 0x09 {
            #expect(parts.last == .error(.whitespaceBeforeColon))
        } else if byte == 0x0A {
            #expect(parts.last == .error(.bareLF))
        } else {
            #expect(parts.last == .error(.invalidFieldName), "byte \(value)")
        }
    }

    /// The first byte of a field line.
    @Test(arguments: 0...255)
    func fieldLineFirstByte(value: Int) {
        let byte = UInt8(value)
        let bytes = latin1("GET / HTTP/1.1\r\nHost: t\r\n") + [byte] + latin1("x: v\r\n\r\n")
        let parts = parseAllWays(bytes)
        if Self.tchar.contains(byte) {
            #expect(parts.last == .end, "byte \(value)")
        } else if byte == 0x20 || byte == 0x09 {
            #expect(parts.last == .error(.obsoleteLineFolding))
        } else if byte == 0x0A {
            #expect(parts.last == .error(.bareLF))
        } else if byte == 0x0D {
            #expect(parts.last == .error(.bareCR))
        } else {
            #expect(parts.last == .error(.invalidFieldName), "byte \(value)")
        }
    }

    /// A byte inside a field value.
    @Test(arguments: 0...255)
    func fieldValueByte(value: Int) throws {
        let byte = UInt8(value)
        let bytes = latin1("GET / HTTP/1.1\r\nHost: t\r\nX-A: a") + [byte] + latin1("b\r\n\r\n")
        let parts = parseAllWays(bytes)
        if (0x21...0x7E).contains(byte) || byte >= 0x80 || byte == 0x20 || byte == 0x09 {
            guard case .head(let head)? = parts.first else {
                Issue.record("byte \(value) refused: \(parts)")
                return
            }
            let received = try #require(head.headers.first("x-a"))
            #expect(HTTPHeaders.octets(of: received) == [0x61, byte, 0x62])
        } else if byte == 0x0D {
            #expect(parts.last == .error(.bareCR))
        } else if byte == 0x0A {
            #expect(parts.last == .error(.bareLF))
        } else {
            #expect(parts.last == .error(.invalidFieldValue), "byte \(value)")
        }
    }

    /// A byte inside a method: the method is a token, so tchar continues it (then 501 for
    /// an unimplemented method), anything else is refused as malformed.
    @Test(arguments: 0...255)
    func methodByte(value: Int) {
        let byte = UInt8(value)
        let bytes = latin1("G") + [byte] + latin1("T / HTTP/1.1\r\nHost: t\r\n\r\n")
        let parts = parseAllWays(bytes)
        if byte == UInt8(ascii: "E") {
            #expect(parts.last == .end)
        } else if Self.tchar.contains(byte) {
            #expect(parts.last == .error(.unknownMethod), "byte \(value)")
        } else if byte == 0x20 {
            #expect(parts.last == .error(.invalidVersion))         // "G T / HTTP/1.1": method G, target T
        } else if byte == 0x0A {
            #expect(parts.last == .error(.bareLF))
        } else if byte == 0x0D || byte == 0x09 {
            #expect(parts.last == .error(.invalidRequestLine))
        } else {
            #expect(parts.last == .error(.invalidMethod), "byte \(value)")
        }
    }

    /// RFC 3986: path and query bytes are pchar / "/" / "?" with
    /// pchar = unreserved / pct-encoded / sub-delims / ":" / "@".
    @Test(arguments: 0...255)
    func targetByte(value: Int) {
        let byte = UInt8(value)
        let allowed = Set(Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/?%".utf8))
        // "%41" after the byte keeps a "%" byte well-formed
        let bytes = latin1("GET /a") + [byte] + latin1("41 HTTP/1.1\r\nHost: t\r\n\r\n")
        let parts = parseAllWays(bytes)
        if allowed.contains(byte) {
            #expect(parts.last == .end, "byte \(value)")
        } else if byte == 0x20 {
            #expect(parts.last == .error(.invalidVersion))
        } else if byte == 0x0A {
            #expect(parts.last == .error(.bareLF))
        } else if byte == 0x0D || byte == 0x09 {
            #expect(parts.last == .error(.invalidRequestLine))
        } else {
            #expect(parts.last == .error(.invalidTarget), "byte \(value)")
        }
    }
}
