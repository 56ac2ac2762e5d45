/// Base64url (RFC 4648 §5) as the protocol writes it: padded with `=` on output,
/// padded or unpadded on input. Standard base64 (`+/`) is available for HTTP fields.
public enum Base64URL {
    private static let urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let stdAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Base64url text of `bytes`, `=`-padded unless `padded` is false.
    public static func encode(_ bytes: some Collection<UInt8>, padded: Bool = true) -> String {
        encode(bytes, alphabet: urlAlphabet, padded: padded)
    }

    /// Standard base64 (`+/`, padded), as RFC 8941 byte sequences and PEM use it.
    public static func encodeStandard(_ bytes: some Collection<UInt8>) -> String {
        encode(bytes, alphabet: stdAlphabet, padded: true)
    }

    /// Decodes base64url, padded or not; nil on any character outside the alphabet,
    /// misplaced or excess padding, or non-zero trailing bits.
    public static func decode(_ text: String) -> [UInt8]? { decode(text, url: true) }

    /// Decodes standard base64 (`+/`), padded or not, with the same strictness.
    public static func decodeStandard(_ text: String) -> [UInt8]? { decode(text, url: false) }

    private static func encode(_ bytes: some Collection<UInt8>, alphabet: [UInt8], padded: Bool) -> String {
        let input = Array(bytes)
        var out = [UInt8]()
        out.reserveCapacity((input.count + 2) / 3 * 4)
        // Byte by byte: an array literal per group allocated, about 100 instructions a byte
        // (purchase keys are encoded several times per signed request; issue 17's profile).
        func put(_ n: UInt32, _ shift: UInt32) { out.append(alphabet[Int(n >> shift & 63)]) }
        var i = 0
        while i + 3 <= input.count {
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
            put(n, 18); put(n, 12); put(n, 6); put(n, 0)
            i += 3
        }
        let rest = input.count - i
        if rest == 1 {
            let n = UInt32(input[i]) << 16
            put(n, 18); put(n, 12)
            if padded { out.append(0x3D); out.append(0x3D) }
        } else if rest == 2 {
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
            put(n, 18); put(n, 12); put(n, 6)
            if padded { out.append(0x3D) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func value(_ c: UInt8, url: Bool) -> UInt32? {
        switch c {
        case 0x41...0x5A: return UInt32(c - 0x41)
        case 0x61...0x7A: return UInt32(c - 0x61 + 26)
        case 0x30...0x39: return UInt32(c - 0x30 + 52)
        case 0x2D where url, 0x2B where !url: return 62
        case 0x5F where url, 0x2F where !url: return 63
        default: return nil
        }
    }

    private static func decode(_ text: String, url: Bool) -> [UInt8]? {
        var chars = Array(text.utf8)
        var padding = 0
        while chars.last == 0x3D { chars.removeLast(); padding += 1 }
        if padding > 0 && (chars.count + padding) % 4 != 0 { return nil }
        if padding > 2 || chars.count % 4 == 1 { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count * 3 / 4)
        var acc: UInt32 = 0
        var bits = 0
        for c in chars {
            guard let v = value(c, url: url) else { return nil }
            acc = acc << 6 | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
                acc &= (1 << UInt32(bits)) - 1
            }
        }
        guard acc == 0 else { return nil }
        return out
    }
}

/// Lower-case hexadecimal, as test vectors and logs spell bytes.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out = [UInt8]()
        for b in bytes { out += [digits[Int(b >> 4)], digits[Int(b & 15)]] }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes hex of either case (an optional `0x` prefix is allowed); nil when malformed.
    public static func decode(_ text: String) -> [UInt8]? {
        var chars = Array(text.utf8)
        if chars.count >= 2, chars[0] == 0x30, chars[1] | 0x20 == 0x78 { chars.removeFirst(2) }
        guard chars.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count / 2)
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x61 + 10
            case 0x41...0x46: return c - 0x41 + 10
            default: return nil
            }
        }
        var i = 0
        while i < chars.count {
            guard let h = nibble(chars[i]), let l = nibble(chars[i + 1]) else { return nil }
            out.append(h << 4 | l)
            i += 2
        }
        return out
    }
}
