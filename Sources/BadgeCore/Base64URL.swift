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
        let full = input.count / 3, rest = input.count % 3
        let length = full * 4 + (rest == 0 ? 0 : (padded ? 4 : rest + 1))
        // Written straight into the string's storage: appending byte by byte, with a capacity
        // check each time, cost about a hundred instructions a byte, and purchase keys are
        // encoded on every signed request (issue 17's profile).
        return input.withUnsafeBufferPointer { src in
            alphabet.withUnsafeBufferPointer { table in
                String(unsafeUninitializedCapacity: length) { out in
                    var o = 0
                    func put(_ n: UInt32, _ shift: UInt32) {
                        out[o] = table[Int(n >> shift & 63)]
                        o += 1
                    }
                    for g in 0..<full {
                        let i = 3 * g
                        let n = UInt32(src[i]) << 16 | UInt32(src[i + 1]) << 8 | UInt32(src[i + 2])
                        put(n, 18); put(n, 12); put(n, 6); put(n, 0)
                    }
                    let i = 3 * full
                    if rest == 1 {
                        let n = UInt32(src[i]) << 16
                        put(n, 18); put(n, 12)
                        if padded { out[o] = 0x3D; out[o + 1] = 0x3D; o += 2 }
                    } else if rest == 2 {
                        let n = UInt32(src[i]) << 16 | UInt32(src[i + 1]) << 8
                        put(n, 18); put(n, 12); put(n, 6)
                        if padded { out[o] = 0x3D; o += 1 }
                    }
                    return o
                }
            }
        }
    }

    /// Each byte's 6-bit value in an alphabet, 0xFF outside it: one load a character, where a
    /// range switch cost about twenty cycles (the signature field and keys of every signed request).
    private static func decodingTable(_ alphabet: [UInt8]) -> [UInt8] {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, c) in alphabet.enumerated() { table[Int(c)] = UInt8(value) }
        return table
    }
    private static let urlValues = decodingTable(urlAlphabet)
    private static let stdValues = decodingTable(stdAlphabet)

    private static func decode(_ text: String, url: Bool) -> [UInt8]? {
        var text = text
        return text.withUTF8 { all -> [UInt8]? in
            var count = all.count
            var padding = 0
            while count > 0, all[count - 1] == 0x3D { count -= 1; padding += 1 }
            if padding > 0 && all.count % 4 != 0 { return nil }
            if padding > 2 || count % 4 == 1 { return nil }
            let full = count / 4, rest = count % 4
            let length = full * 3 + (rest == 0 ? 0 : rest - 1)
            var invalid: UInt8 = 0
            // Decoded into the array's storage in one pass (no copy of the text, no append).
            let out = (url ? urlValues : stdValues).withUnsafeBufferPointer { table in
                [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
                    func value(_ k: Int) -> UInt32 {
                        let v = table[Int(all[k])]
                        invalid |= v
                        return UInt32(v)
                    }
                    var o = 0
                    for g in 0..<full {
                        let k = 4 * g
                        let n = value(k) << 18 | value(k + 1) << 12 | value(k + 2) << 6 | value(k + 3)
                        buffer[o] = UInt8(truncatingIfNeeded: n >> 16)
                        buffer[o + 1] = UInt8(truncatingIfNeeded: n >> 8)
                        buffer[o + 2] = UInt8(truncatingIfNeeded: n)
                        o += 3
                    }
                    let k = 4 * full
                    if rest == 2 {
                        let n = value(k) << 18 | value(k + 1) << 12
                        buffer[o] = UInt8(truncatingIfNeeded: n >> 16)
                        if n & 0xFFFF != 0 { invalid = 0xFF }    // non-zero trailing bits
                        o += 1
                    } else if rest == 3 {
                        let n = value(k) << 18 | value(k + 1) << 12 | value(k + 2) << 6
                        buffer[o] = UInt8(truncatingIfNeeded: n >> 16)
                        buffer[o + 1] = UInt8(truncatingIfNeeded: n >> 8)
                        if n & 0xFF != 0 { invalid = 0xFF }
                        o += 2
                    }
                    initialized = o
                }
            }
            // A value outside the alphabet (0xFF) is the only one with its top bits set.
            return invalid & 0xC0 == 0 ? out : nil
        }
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
