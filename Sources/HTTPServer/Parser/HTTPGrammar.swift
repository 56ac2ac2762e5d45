/// Byte classes of the RFC 9110/9112/3986 grammars the parser checks, as one 256-entry table.
///
/// ```
/// tchar        = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
///                "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA          ; RFC 9110 §5.6.2
/// field-vchar  = VCHAR / obs-text                                     ; RFC 9110 §5.5
/// pchar        = unreserved / pct-encoded / sub-delims / ":" / "@"    ; RFC 3986 §3.3
/// query        = *( pchar / "/" / "?" )                               ; RFC 3986 §3.4
/// reg-name     = *( unreserved / pct-encoded / sub-delims )           ; RFC 3986 §3.2.2
/// ```
package enum HTTPGrammar {
    static let tokenFlag: UInt8 = 0x01
    static let fieldVCharFlag: UInt8 = 0x02
    static let targetFlag: UInt8 = 0x04
    static let hexFlag: UInt8 = 0x08
    static let regNameFlag: UInt8 = 0x10

    static let table: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 256)
        let alpha = Array(UInt8(ascii: "a")...UInt8(ascii: "z")) + Array(UInt8(ascii: "A")...UInt8(ascii: "Z"))
        let digit = Array(UInt8(ascii: "0")...UInt8(ascii: "9"))
        let unreserved = alpha + digit + Array("-._~".utf8)
        let subDelims = Array("!$&'()*+,;=".utf8)
        for byte in alpha + digit + Array("!#$%&'*+-.^_`|~".utf8) { table[Int(byte)] |= tokenFlag }
        for byte in 0x21...0xFF where byte != 0x7F { table[byte] |= fieldVCharFlag }
        // "[" and "]" only for an IP-literal authority of an absolute-form target: checked after parsing
        for byte in unreserved + subDelims + Array(":@/?%[]".utf8) { table[Int(byte)] |= targetFlag }
        for byte in digit + Array("abcdefABCDEF".utf8) { table[Int(byte)] |= hexFlag }
        for byte in unreserved + subDelims + Array("%".utf8) { table[Int(byte)] |= regNameFlag }
        return table
    }()

    /// `tchar` (RFC 9110 §5.6.2).
    package static func isTokenChar(_ byte: UInt8) -> Bool { table[Int(byte)] & tokenFlag != 0 }
    /// A byte allowed inside a field value: field-vchar, SP or HTAB.
    package static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || table[Int(byte)] & fieldVCharFlag != 0
    }
    /// HEXDIG, either case.
    package static func isHexDigit(_ byte: UInt8) -> Bool { table[Int(byte)] & hexFlag != 0 }
    /// DIGIT.
    package static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

    /// The value of a HEXDIG.
    static func hexValue(_ byte: UInt8) -> UInt64 {
        switch byte {
        case 0x30...0x39: UInt64(byte - 0x30)
        case 0x41...0x46: UInt64(byte - 0x41 + 10)
        default: UInt64(byte - 0x61 + 10)
        }
    }

    /// ASCII lowercase of one byte.
    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte &- 0x41 < 26 ? byte | 0x20 : byte
    }

    /// True when `bytes` equals `lowercaseLiteral` ASCII-case-insensitively.
    static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ lowercaseLiteral: StaticString) -> Bool {
        guard bytes.count == lowercaseLiteral.utf8CodeUnitCount else { return false }
        let literal = lowercaseLiteral.utf8Start
        for i in 0..<bytes.count where lowercased(bytes[i]) != literal[i] {
            return false
        }
        return true
    }

    /// Methods this server implements; any other token is answered 501 (RFC 9110 §9.1).
    /// CONNECT and TRACE are deliberately absent.
    static let knownMethods: [String] = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"]
    /// Length of the longest known method: a longer method is refused before it is complete.
    static let longestMethod = 7

    /// Validates `uri-host [ ":" port ]` (RFC 9110 §7.2) as received in Host or in the authority of
    /// an absolute-form target. Empty is refused: RFC 9112 §3.2 allows it only for a target URI
    /// without authority, which no request to this origin server has.
    static func isValidHost(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        let n = bytes.count
        guard n > 0 else { return false }
        if n > 0 && bytes[0] == UInt8(ascii: "[") {
            // IP-literal: IPv6address / IPvFuture, checked loosely for its alphabet
            i = 1
            var sawClose = false
            while i < n {
                let b = bytes[i]
                i += 1
                if b == UInt8(ascii: "]") { sawClose = true; break }
                guard isHexDigit(b) || b == UInt8(ascii: ":") || b == UInt8(ascii: ".")
                        || (table[Int(b)] & regNameFlag != 0 && b != UInt8(ascii: "%")) else { return false }
            }
            guard sawClose, i > 2 else { return false }
        } else {
            guard bytes[0] != UInt8(ascii: ":") else { return false }  // a port without a host
            while i < n && bytes[i] != UInt8(ascii: ":") {
                let b = bytes[i]
                // strict choice: "," is a sub-delim, but in Host it only ever means two values joined
                guard table[Int(b)] & regNameFlag != 0, b != UInt8(ascii: ",") else { return false }
                if b == UInt8(ascii: "%") {
                    guard i + 2 < n, isHexDigit(bytes[i + 1]), isHexDigit(bytes[i + 2]) else { return false }
                    i += 2
                }
                i += 1
            }
        }
        guard i < n else { return true }
        guard bytes[i] == UInt8(ascii: ":") else { return false }
        i += 1
        while i < n {
            guard isDigit(bytes[i]) else { return false }
            i += 1
        }
        return true
    }
}
