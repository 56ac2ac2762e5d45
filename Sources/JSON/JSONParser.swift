/// A strict RFC 8259 parser working on bytes.
///
/// It refuses everything the RFC does not define and everything two conforming parsers might
/// read differently: invalid UTF-8, unescaped control characters, unpaired surrogate escapes,
/// leading zeros, `NaN`/`Infinity`, numbers beyond `Double`, a byte order mark, trailing
/// data, duplicate member names, and nesting deeper than `maxDepth`. Any JSON value may be
/// the top level (RFC 8259 §2).
public struct JSONParser: Sendable {
    /// Deepest nesting of arrays and objects accepted (a top-level array is depth 1).
    public var maxDepth: Int

    public init(maxDepth: Int = 64) {
        self.maxDepth = maxDepth
    }

    /// Parses one JSON text.
    public func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
        var cursor = Cursor(bytes.bindMemory(to: UInt8.self), maxDepth: maxDepth)
        return try cursor.parseDocument()
    }

    /// Parses one JSON text.
    public func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) -> JSONValue in try parse(buffer) }
        }
        return try result.get()
    }

    /// Parses one JSON text given as a string (its UTF-8 bytes).
    public func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}

extension JSONValue {
    /// Parses `bytes` with the default limits (see ``JSONParser``).
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try JSONParser().parse(bytes)
    }

    /// Parses `text` with the default limits (see ``JSONParser``).
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try JSONParser().parse(text)
    }
}

private let quote: UInt8 = 0x22, backslash: UInt8 = 0x5C

private struct Cursor {
    let b: UnsafeBufferPointer<UInt8>
    let n: Int
    let maxDepth: Int
    var i = 0
    /// Reused for strings that need unescaping.
    var scratch: [UInt8] = []
    /// The members of the objects being read, innermost last: each object's array is made once,
    /// at its size, instead of growing member by member (four allocations for eight members).
    var openMembers: [JSONObject.Member] = []

    init(_ b: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.b = b
        self.n = b.count
        self.maxDepth = maxDepth
    }

    func fail(_ reason: JSONParseError.Reason, at offset: Int? = nil) -> JSONParseError {
        JSONParseError(offset: offset ?? i, reason: reason)
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        if n == 0 { throw fail(.empty) }
        if n >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { throw fail(.byteOrderMark) }
        let value = try parseValue(depth: 0)
        skipWhitespace()
        if i != n { throw fail(.trailingData) }
        return value
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while i < n {
            switch b[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        guard i < n else { throw fail(.unexpectedEnd) }
        switch b[i] {
        case 0x7B: return try parseObject(depth: depth + 1)
        case 0x5B: return try parseArray(depth: depth + 1)
        case quote: return .string(try parseString())
        case 0x74: try literal("true"); return .bool(true)
        case 0x66: try literal("false"); return .bool(false)
        case 0x6E: try literal("null"); return .null
        case 0x2D, 0x30...0x39: return .number(try parseNumber())
        case let c: throw fail(c >= 0x80 ? .invalidUTF8 : .unexpectedByte(c))
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let p = word.utf8Start
        for k in 0..<word.utf8CodeUnitCount {
            guard i < n else { throw fail(.unexpectedEnd) }
            guard b[i] == p[k] else { throw fail(.unexpectedByte(b[i])) }
            i += 1
        }
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        if depth > maxDepth { throw fail(.tooDeep(limit: maxDepth)) }
        i += 1
        skipWhitespace()
        guard i < n else { throw fail(.unexpectedEnd) }
        if b[i] == 0x7D { i += 1; return .object(JSONObject()) }
        // Small objects collect their members on `openMembers`, checked for duplicates linearly;
        // past the object's index threshold they move into a JSONObject, which hashes its keys.
        if openMembers.capacity == 0 { openMembers.reserveCapacity(16) }
        let start = openMembers.count
        var large: JSONObject?
        while true {
            skipWhitespace()
            guard i < n else { throw fail(.unexpectedEnd) }
            guard b[i] == quote else { throw fail(.unexpectedByte(b[i])) }
            let keyOffset = i
            let key = try parseString()
            skipWhitespace()
            guard i < n else { throw fail(.unexpectedEnd) }
            guard b[i] == 0x3A else { throw fail(.unexpectedByte(b[i])) }
            i += 1
            let value = try parseValue(depth: depth)
            if large != nil {
                guard large!.appendNew(key, value) else { throw fail(.duplicateKey(key), at: keyOffset) }
            } else {
                for k in start..<openMembers.count where exactlyEqual(openMembers[k].key, key) {
                    throw fail(.duplicateKey(key), at: keyOffset)
                }
                openMembers.append(JSONObject.Member(key: key, value: value))
                if openMembers.count - start > JSONObject.indexThreshold { large = popObject(from: start) }
            }
            skipWhitespace()
            guard i < n else { throw fail(.unexpectedEnd) }
            switch b[i] {
            case 0x2C: i += 1
            case 0x7D:
                i += 1
                return .object(large ?? popObject(from: start))
            case let c: throw fail(.unexpectedByte(c))
            }
        }
    }

    /// The object made of `openMembers` from `start` on, which leave the stack.
    mutating func popObject(from start: Int) -> JSONObject {
        let object = JSONObject(distinctMembers: Array(openMembers[start...]))
        openMembers.removeLast(openMembers.count - start)
        return object
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        if depth > maxDepth { throw fail(.tooDeep(limit: maxDepth)) }
        i += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        guard i < n else { throw fail(.unexpectedEnd) }
        if b[i] == 0x5D { i += 1; return .array(elements) }
        while true {
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            guard i < n else { throw fail(.unexpectedEnd) }
            switch b[i] {
            case 0x2C: i += 1
            case 0x5D: i += 1; return .array(elements)
            case let c: throw fail(.unexpectedByte(c))
            }
        }
    }

    // MARK: numbers

    @inline(__always) func isDigit(_ k: Int) -> Bool { k < n && b[k] &- 0x30 < 10 }

    /// number = [ minus ] int [ frac ] [ exp ] (RFC 8259 §6).
    mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = i
        if b[i] == 0x2D { i += 1 }
        let intStart = i
        guard isDigit(i) else { throw fail(i < n ? .invalidNumber : .unexpectedEnd) }
        if b[i] == 0x30 {
            i += 1
            if isDigit(i) { throw fail(.leadingZero, at: intStart) }
        } else {
            while isDigit(i) { i += 1 }
        }
        let intEnd = i
        var fracStart = i, fracEnd = i
        if i < n, b[i] == 0x2E {
            i += 1
            guard isDigit(i) else { throw fail(i < n ? .invalidNumber : .unexpectedEnd) }
            fracStart = i
            while isDigit(i) { i += 1 }
            fracEnd = i
        }
        var exponent = 0
        var hasExponent = false
        if i < n, b[i] | 0x20 == 0x65 {
            hasExponent = true
            i += 1
            var negative = false
            if i < n, b[i] == 0x2B || b[i] == 0x2D { negative = b[i] == 0x2D; i += 1 }
            guard isDigit(i) else { throw fail(i < n ? .invalidNumber : .unexpectedEnd) }
            while isDigit(i) {
                // Saturate: anything this large is out of range or zero anyway.
                if exponent < 100_000 { exponent = exponent * 10 + Int(b[i] - 0x30) }
                i += 1
            }
            if negative { exponent = -exponent }
        }

        // Integrality from the digits: value = D × 10^-(fractionDigits - exponent), with D the
        // digits without the point; each trailing zero of D lowers that scale by one.
        var scale = (fracEnd - fracStart) - exponent
        var allZero = true
        var k = fracEnd
        while k > intStart {
            k -= 1
            if k == fracStart - 1 && fracEnd > fracStart { continue } // the '.'
            if b[k] == 0x30 { scale -= 1 } else { allZero = false; break }
        }
        let isInteger = allZero || scale <= 0

        let digitCount = intEnd - intStart
        if fracEnd == fracStart && !hasExponent && digitCount <= 15 {
            var v: Int64 = 0
            for k in intStart..<intEnd { v = v * 10 + Int64(b[k] - 0x30) }
            return JSONNumber(value: Double(b[start] == 0x2D ? -v : v), isInteger: true)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw fail(.numberOutOfRange, at: start) }
        return JSONNumber(value: value, isInteger: isInteger)
    }

    // MARK: strings

    /// A string starting at the opening quote; returns its unescaped, UTF-8-validated content.
    mutating func parseString() throws(JSONParseError) -> String {
        i += 1
        let start = i
        // Fast path: printable ASCII without escapes, copied in one go.
        while i < n {
            let c = b[i]
            if c == quote {
                let s = String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)
                i += 1
                return s
            }
            if c == backslash || c < 0x20 || c >= 0x80 { break }
            i += 1
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: b[start..<i]))
        while true {
            guard i < n else { throw fail(.unexpectedEnd) }
            let c = b[i]
            switch c {
            case quote:
                i += 1
                return String(decoding: scratch, as: UTF8.self)
            case backslash:
                try parseEscape()
            case 0..<0x20:
                throw fail(.controlCharacter)
            case 0x20..<0x80:
                scratch.append(c)
                i += 1
            default:
                let length = try utf8SequenceLength()
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: b[i..<(i + length)]))
                i += length
            }
        }
    }

    mutating func parseEscape() throws(JSONParseError) {
        let escapeStart = i
        i += 1
        guard i < n else { throw fail(.unexpectedEnd) }
        let c = b[i]
        i += 1
        switch c {
        case quote, backslash, 0x2F: scratch.append(c)
        case 0x62: scratch.append(0x08)
        case 0x66: scratch.append(0x0C)
        case 0x6E: scratch.append(0x0A)
        case 0x72: scratch.append(0x0D)
        case 0x74: scratch.append(0x09)
        case 0x75:
            var scalar = try hex4()
            if scalar >= 0xD800 && scalar < 0xDC00 {
                guard i + 1 < n, b[i] == backslash, b[i + 1] == 0x75 else { throw fail(.loneSurrogate, at: escapeStart) }
                i += 2
                let low = try hex4()
                guard low >= 0xDC00 && low < 0xE000 else { throw fail(.loneSurrogate, at: escapeStart) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00 && scalar < 0xE000 {
                throw fail(.loneSurrogate, at: escapeStart)
            }
            appendUTF8(scalar)
        default:
            throw fail(.invalidEscape, at: escapeStart)
        }
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard i < n else { throw fail(.unexpectedEnd) }
            let c = b[i]
            let d: UInt8
            switch c {
            case 0x30...0x39: d = c - 0x30
            case 0x41...0x46: d = c - 0x41 + 10
            case 0x61...0x66: d = c - 0x61 + 10
            default: throw fail(.invalidEscape)
            }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }

    mutating func appendUTF8(_ v: UInt32) {
        switch v {
        case 0..<0x80:
            scratch.append(UInt8(v))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | v >> 6)); scratch.append(UInt8(0x80 | v & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | v >> 12)); scratch.append(UInt8(0x80 | v >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | v & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | v >> 18)); scratch.append(UInt8(0x80 | v >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | v >> 6 & 0x3F)); scratch.append(UInt8(0x80 | v & 0x3F))
        }
    }

    /// Length of the well-formed UTF-8 sequence at `i` (RFC 3629 §4: no overlong forms,
    /// no surrogates, nothing above U+10FFFF), or an error at its first bad byte.
    func utf8SequenceLength() throws(JSONParseError) -> Int {
        let c = b[i]
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF // bounds of the second byte
        switch c {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: throw fail(.invalidUTF8)
        }
        for k in 1..<length {
            guard i + k < n else { throw fail(.unexpectedEnd, at: n) }
            let ok = k == 1 ? (b[i + 1] >= low && b[i + 1] <= high) : b[i + k] & 0xC0 == 0x80
            guard ok else { throw fail(.invalidUTF8, at: i + k) }
        }
        return length
    }
}
