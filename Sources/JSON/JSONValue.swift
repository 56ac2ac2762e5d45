/// A JSON value (RFC 8259) as the RPC layer sees it: objects keep their members in the
/// order they were read or built, so output is deterministic and mirrors input.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The string, when this is one.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The object, when this is one.
    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The number, when this is one.
    public var numberValue: JSONNumber? {
        if case .number(let n) = self { return n }
        return nil
    }

    /// The member `key` when this is an object holding it.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// Structural equality; strings compare by exact UTF-8 bytes, objects ignore member order.
    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.number(let x), .number(let y)): x == y
        case (.string(let x), .string(let y)): exactlyEqual(x, y)
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)): x == y
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(1); hasher.combine(b)
        case .number(let n): hasher.combine(2); hasher.combine(n)
        case .string(let s): hasher.combine(3); hasher.combine(ExactKey(s))
        case .array(let a): hasher.combine(4); hasher.combine(a)
        case .object(let o): hasher.combine(5); hasher.combine(o)
        }
    }

    /// A short name of the JSON type, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

/// A JSON number held as a `Double`, plus whether its literal was mathematically an integer.
///
/// A `Double` is exact for every integer of magnitude up to 2^53, which covers all JTD integer
/// types (at most 32 bits), but it rounds `1.0000000000000000001` to `1`. The parser therefore
/// decides integrality from the literal's digits, so JTD integer checks stay exact. Beyond 2^53
/// the value itself is rounded (the nearest `Double`); literals beyond the `Double` range are
/// refused by the parser rather than read as infinity.
public struct JSONNumber: Hashable, Sendable, CustomStringConvertible {
    /// The nearest `Double` to the number.
    public let value: Double
    /// Whether the number is an integer (decided from the literal when parsed).
    public let isInteger: Bool

    /// A number from a `Double`; non-finite values serialize as `null`.
    public init(_ value: Double) {
        self.value = value
        self.isInteger = value.isFinite && value.rounded(.towardZero) == value
    }

    /// An integer.
    public init(_ value: Int) {
        self.value = Double(value)
        self.isInteger = true
    }

    init(value: Double, isInteger: Bool) {
        self.value = value
        self.isInteger = isInteger
    }

    /// The value as an `Int` when it is an integer a `Double` represents exactly (|n| ≤ 2^53).
    public var exactInt: Int? {
        guard isInteger, abs(value) <= 9_007_199_254_740_992 else { return nil }
        return Int(value)
    }

    public var description: String { String(decoding: JSONSerializer.serialize(.number(self)), as: UTF8.self) }
}

extension JSONValue: CustomStringConvertible {
    /// Compact JSON text.
    public var description: String { String(decoding: JSONSerializer.serialize(self), as: UTF8.self) }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }
    public init(floatLiteral value: Double) { self = .number(JSONNumber(value)) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// Members in literal order; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object = JSONObject()
        for (k, v) in elements { object[k] = v }
        self = .object(object)
    }
}
