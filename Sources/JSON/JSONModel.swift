/// A typed value with its JSON form, in this project's conventions: optionals omitted, never
/// null; sum types tagged by `"type"` with their fields beside the tag (Schema adds bytes as
/// padded base64url and timestamps as RFC 3339 UTC).
///
/// Decoding never traps on any input, reporting the instance path instead.
public protocol JSONModel: Sendable {
    /// Decodes the value found at `path` (JSON Pointer tokens, for error messages).
    init(json: JSONValue, at path: [String]) throws(JSONDecodingError)
    /// The JSON form.
    var json: JSONValue { get }
}

extension JSONModel {
    /// Decodes a value at the document root.
    public init(json: JSONValue) throws(JSONDecodingError) {
        try self.init(json: json, at: [])
    }
}

/// A JSON value that cannot become a typed value, and where.
public struct JSONDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public let instancePath: [String]
    public let reason: String

    public init(instancePath: [String], reason: String) {
        self.instancePath = instancePath
        self.reason = reason
    }

    /// The instance path as a JSON Pointer, e.g. `/request/masterKey`.
    public var instancePointer: String { JSONPointer.format(instancePath) }

    public var description: String { "\(instancePointer.isEmpty ? "/" : instancePointer): \(reason)" }
}

/// Reads the members of one JSON object, reporting failures at `path + [member]`.
public struct JSONObjectReader {
    public let object: JSONObject
    public let path: [String]

    public init(_ value: JSONValue, at path: [String] = []) throws(JSONDecodingError) {
        guard case .object(let o) = value else {
            throw JSONDecodingError(instancePath: path, reason: "expected an object, found \(value.typeName)")
        }
        object = o
        self.path = path
    }

    /// An error about member `key`.
    public func fail(_ key: String, _ reason: String) -> JSONDecodingError {
        JSONDecodingError(instancePath: path + [key], reason: reason)
    }

    public func value(_ key: String) throws(JSONDecodingError) -> JSONValue {
        guard let v = object[key] else { throw JSONDecodingError(instancePath: path, reason: "missing member \"\(key)\"") }
        return v
    }

    public func has(_ key: String) -> Bool { object.contains(key) }

    public func string(_ key: String) throws(JSONDecodingError) -> String {
        let v = try value(key)
        guard case .string(let s) = v else { throw fail(key, "expected a string, found \(v.typeName)") }
        return s
    }

    public func optionalString(_ key: String) throws(JSONDecodingError) -> String? {
        has(key) ? try string(key) : nil
    }

    /// The sum-type tag.
    public func tag() throws(JSONDecodingError) -> String { try string("type") }

    /// An integer member (exact: a number with a fraction or beyond 2^53 is refused), within `range`.
    public func int(_ key: String, in range: ClosedRange<Int> = Int.min...Int.max) throws(JSONDecodingError) -> Int {
        let v = try value(key)
        guard case .number(let n) = v else { throw fail(key, "expected an integer, found \(v.typeName)") }
        guard let i = n.exactInt, range.contains(i) else {
            throw fail(key, range == Int.min...Int.max ? "expected an integer" : "expected an integer in \(range)")
        }
        return i
    }

    public func uint32(_ key: String) throws(JSONDecodingError) -> UInt32 {
        UInt32(try int(key, in: 0...Int(UInt32.max)))
    }

    public func optionalUInt32(_ key: String) throws(JSONDecodingError) -> UInt32? {
        has(key) ? try uint32(key) : nil
    }

    /// The member `key`, which must be an object, as a reader of its own.
    public func nested(_ key: String) throws(JSONDecodingError) -> JSONObjectReader {
        try JSONObjectReader(try value(key), at: path + [key])
    }

    public func model<M: JSONModel>(_ key: String, as type: M.Type = M.self) throws(JSONDecodingError) -> M {
        try M(json: try value(key), at: path + [key])
    }

    public func optionalModel<M: JSONModel>(_ key: String, as type: M.Type = M.self) throws(JSONDecodingError) -> M? {
        guard let v = object[key] else { return nil }
        return try M(json: v, at: path + [key])
    }

    public func models<M: JSONModel>(_ key: String, as type: M.Type = M.self) throws(JSONDecodingError) -> [M] {
        let v = try value(key)
        guard case .array(let items) = v else { throw fail(key, "expected an array, found \(v.typeName)") }
        var out: [M] = []
        out.reserveCapacity(items.count)
        for (i, item) in items.enumerated() { out.append(try M(json: item, at: path + [key, String(i)])) }
        return out
    }

    public func unknownTag(_ tag: String) -> JSONDecodingError {
        fail("type", "unknown type \"\(tag)\"")
    }

    /// A string member that must be one of `E`'s raw values.
    public func enumeration<E: RawRepresentable>(_ key: String, as type: E.Type = E.self) throws(JSONDecodingError) -> E
    where E.RawValue == String {
        let s = try string(key)
        guard let e = E(rawValue: s) else { throw fail(key, "unknown value \"\(s)\"") }
        return e
    }

    public func optionalEnumeration<E: RawRepresentable>(_ key: String, as type: E.Type = E.self) throws(JSONDecodingError) -> E?
    where E.RawValue == String {
        has(key) ? try enumeration(key) : nil
    }
}

/// Builds a JSON object; members keep the order they are added in.
public struct JSONObjectBuilder {
    public var object = JSONObject()

    /// An object that starts with the sum-type tag `"type": type`, when given.
    public init(type: String? = nil) {
        // The schema's largest object, a ledger entry, has 9 members: one allocation for any of
        // them, where growing one member at a time made up to four.
        object.reserveCapacity(9)
        if let type { object.appendNew("type", .string(type)) }
    }

    public mutating func add(_ key: String, _ value: JSONValue) { object.appendNew(key, value) }
    public mutating func add(_ key: String, _ value: String) { object.appendNew(key, .string(value)) }
    public mutating func add(_ key: String, _ value: Int) { object.appendNew(key, .number(JSONNumber(value))) }
    public mutating func add(_ key: String, _ value: UInt32) { object.appendNew(key, .number(JSONNumber(Int(value)))) }
    public mutating func add(_ key: String, _ value: some JSONModel) { object.appendNew(key, value.json) }
    public mutating func add(_ key: String, _ values: [some JSONModel]) { object.appendNew(key, .array(values.map(\.json))) }

    /// Optional members are omitted when nil, never written as null.
    public mutating func add(_ key: String, _ value: String?) { if let value { add(key, value) } }
    public mutating func add(_ key: String, _ value: UInt32?) { if let value { add(key, value) } }
    public mutating func add(_ key: String, _ value: (some JSONModel)?) { if let value { add(key, value) } }

    public var json: JSONValue { .object(object) }
}
