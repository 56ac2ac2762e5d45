/// Compact JSON output: no insignificant whitespace, members in insertion order, strings
/// escaped minimally (`"`, `\` and control characters; everything else, non-ASCII included,
/// as raw UTF-8), integers without a fraction.
public enum JSONSerializer {
    /// The compact text of `value`.
    public static func serialize(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out)
        return out
    }

    /// Appends the compact text of `value` to `out`.
    public static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(true): out.append(contentsOf: [0x74, 0x72, 0x75, 0x65])
        case .bool(false): out.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65])
        case .number(let n): writeNumber(n, into: &out)
        case .string(let s): writeString(s, into: &out)
        case .array(let elements):
            out.append(0x5B)
            for (k, e) in elements.enumerated() {
                if k > 0 { out.append(0x2C) }
                write(e, into: &out)
            }
            out.append(0x5D)
        case .object(let object):
            out.append(0x7B)
            for (k, m) in object.members.enumerated() {
                if k > 0 { out.append(0x2C) }
                writeString(m.key, into: &out)
                out.append(0x3A)
                write(m.value, into: &out)
            }
            out.append(0x7D)
        }
    }

    /// Integers up to 2^53 in plain decimal; other finite numbers in Swift's shortest
    /// round-trip form (`0.1`, `1e+300`, valid JSON); non-finite ones, which JSON cannot
    /// express, as `null`.
    static func writeNumber(_ n: JSONNumber, into out: inout [UInt8]) {
        let v = n.value
        if n.isInteger, abs(v) <= 9_007_199_254_740_992 {
            writeInteger(Int64(v), into: &out)
        } else if v.isFinite {
            out.append(contentsOf: v.description.utf8)
        } else {
            out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        }
    }

    static func writeInteger(_ value: Int64, into out: inout [UInt8]) {
        // At most 17 characters: a small string, built without allocating.
        out.append(contentsOf: String(value).utf8)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(0x22)
        var copy = s
        copy.withUTF8 { bytes in
            var runStart = 0
            for k in 0..<bytes.count {
                let c = bytes[k]
                guard c < 0x20 || c == 0x22 || c == 0x5C else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<k]))
                runStart = k + 1
                out.append(0x5C)
                switch c {
                case 0x22, 0x5C: out.append(c)
                case 0x08: out.append(0x62)
                case 0x0C: out.append(0x66)
                case 0x0A: out.append(0x6E)
                case 0x0D: out.append(0x72)
                case 0x09: out.append(0x74)
                default: out.append(contentsOf: [0x75, 0x30, 0x30, hexDigits[Int(c >> 4)], hexDigits[Int(c & 15)]])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        }
        out.append(0x22)
    }
}

extension JSONSerializer {
    /// Appends `s` as a JSON string (quoted, escaped as every serialised value is), for writers
    /// that build a known shape straight into bytes rather than through a ``JSONValue``.
    public static func append(string s: String, to out: inout [UInt8]) { writeString(s, into: &out) }

    /// Appends `n` as a JSON number, exactly as a serialised ``JSONValue/number(_:)``.
    public static func append(number n: JSONNumber, to out: inout [UInt8]) { writeNumber(n, into: &out) }
}

extension JSONValue {
    /// Compact JSON bytes (see ``JSONSerializer``).
    public func serialized() -> [UInt8] { JSONSerializer.serialize(self) }
}

/// How serialized JSON is laid out. Every layout is deterministic: members in insertion
/// order, the same escaping and numbers as the compact form.
public enum JSONLayout: Sendable {
    /// No insignificant whitespace: what the service sends and logs.
    case compact
    /// One line with a space after each `:` and `,`, as the CLI prints short answers.
    case spaced
    /// Two-space indentation, a member or element a line, for files people open.
    case indented
}

extension JSONSerializer {
    /// The text of `value` in `layout`.
    public static func serialize(_ value: JSONValue, layout: JSONLayout) -> [UInt8] {
        guard layout != .compact else { return serialize(value) }
        var out: [UInt8] = []
        write(value, layout: layout, depth: 0, into: &out)
        return out
    }

    private static func write(_ value: JSONValue, layout: JSONLayout, depth: Int, into out: inout [UInt8]) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            out.append(0x5B)
            for (k, e) in elements.enumerated() {
                separate(first: k == 0, layout: layout, depth: depth + 1, into: &out)
                write(e, layout: layout, depth: depth + 1, into: &out)
            }
            close(layout: layout, depth: depth, into: &out)
            out.append(0x5D)
        case .object(let object) where !object.isEmpty:
            out.append(0x7B)
            for (k, m) in object.members.enumerated() {
                separate(first: k == 0, layout: layout, depth: depth + 1, into: &out)
                writeString(m.key, into: &out)
                out.append(contentsOf: [0x3A, 0x20])
                write(m.value, layout: layout, depth: depth + 1, into: &out)
            }
            close(layout: layout, depth: depth, into: &out)
            out.append(0x7D)
        default:
            write(value, into: &out)
        }
    }

    /// Before a member or element: a comma after the first, then a space or a new line.
    private static func separate(first: Bool, layout: JSONLayout, depth: Int, into out: inout [UInt8]) {
        if !first { out.append(0x2C) }
        if layout == .indented {
            newline(depth: depth, into: &out)
        } else if !first {
            out.append(0x20)
        }
    }

    /// Before a closing bracket: indented layouts put it on its own line.
    private static func close(layout: JSONLayout, depth: Int, into out: inout [UInt8]) {
        if layout == .indented { newline(depth: depth, into: &out) }
    }

    private static func newline(depth: Int, into out: inout [UInt8]) {
        out.append(0x0A)
        out.append(contentsOf: [UInt8](repeating: 0x20, count: 2 * depth))
    }
}

extension JSONValue {
    /// The JSON text in `layout`, as bytes.
    public func serialized(_ layout: JSONLayout) -> [UInt8] { JSONSerializer.serialize(self, layout: layout) }

    /// The JSON text in `layout`, as a string.
    public func text(_ layout: JSONLayout = .compact) -> String {
        String(decoding: JSONSerializer.serialize(self, layout: layout), as: UTF8.self)
    }
}
