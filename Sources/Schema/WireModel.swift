import BadgeCore

/// A typed protocol value with its JSON wire form (upstream conventions: optionals omitted,
/// never null; sum types tagged by `"type"` with their fields beside the tag; bytes as padded
/// base64url; timestamps as RFC 3339 UTC).
///
/// Decoding expects JSON that already passed the schema; it checks what the schema cannot
/// (base64url text, key and signature lengths, timestamps as instants) and never traps on any
/// input, reporting the instance path instead.
public protocol WireModel: Sendable {
    /// Decodes the value found at `path` (JSON Pointer tokens, for error messages).
    init(json: JSONValue, at path: [String]) throws(WireDecodingError)
    /// The wire form.
    var json: JSONValue { get }
}

extension WireModel {
    /// Decodes a value at the document root.
    public init(json: JSONValue) throws(WireDecodingError) {
        try self.init(json: json, at: [])
    }
}

/// A JSON value that cannot become a wire model, and where: the gateway answers `bad_request`.
public struct WireDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
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
struct WireObject {
    let object: JSONObject
    let path: [String]

    init(_ value: JSONValue, at path: [String]) throws(WireDecodingError) {
        guard case .object(let o) = value else {
            throw WireDecodingError(instancePath: path, reason: "expected an object, found \(value.typeName)")
        }
        object = o
        self.path = path
    }

    func fail(_ key: String, _ reason: String) -> WireDecodingError {
        WireDecodingError(instancePath: path + [key], reason: reason)
    }

    func value(_ key: String) throws(WireDecodingError) -> JSONValue {
        guard let v = object[key] else { throw WireDecodingError(instancePath: path, reason: "missing member \"\(key)\"") }
        return v
    }

    func has(_ key: String) -> Bool { object.contains(key) }

    func string(_ key: String) throws(WireDecodingError) -> String {
        let v = try value(key)
        guard case .string(let s) = v else { throw fail(key, "expected a string, found \(v.typeName)") }
        return s
    }

    func optionalString(_ key: String) throws(WireDecodingError) -> String? {
        has(key) ? try string(key) : nil
    }

    /// The sum-type tag.
    func tag() throws(WireDecodingError) -> String { try string("type") }

    func int(_ key: String, in range: ClosedRange<Int>) throws(WireDecodingError) -> Int {
        let v = try value(key)
        guard case .number(let n) = v else { throw fail(key, "expected an integer, found \(v.typeName)") }
        guard let i = n.exactInt, range.contains(i) else { throw fail(key, "expected an integer in \(range)") }
        return i
    }

    func uint32(_ key: String) throws(WireDecodingError) -> UInt32 {
        UInt32(try int(key, in: 0...Int(UInt32.max)))
    }

    func optionalUInt32(_ key: String) throws(WireDecodingError) -> UInt32? {
        has(key) ? try uint32(key) : nil
    }

    func timestamp(_ key: String) throws(WireDecodingError) -> Timestamp {
        let s = try string(key)
        guard let t = RFC3339.parse(s) else { throw fail(key, "not an RFC 3339 timestamp") }
        return t
    }

    func optionalTimestamp(_ key: String) throws(WireDecodingError) -> Timestamp? {
        has(key) ? try timestamp(key) : nil
    }

    /// Base64url bytes, padded or not, optionally of an exact length.
    func bytes(_ key: String, count: Int? = nil, what: String = "bytes") throws(WireDecodingError) -> [UInt8] {
        let s = try string(key)
        guard let b = Base64URL.decode(s) else { throw fail(key, "not valid base64url") }
        if let count, b.count != count { throw fail(key, "\(what) must be \(count) bytes, found \(b.count)") }
        return b
    }

    /// A purchase key kept as the text the client wrote (the signer key is compared as text),
    /// after checking it is base64url of an Ed25519 SubjectPublicKeyInfo.
    func purchaseKey(_ key: String) throws(WireDecodingError) -> String {
        let s = try string(key)
        guard let b = Base64URL.decode(s) else { throw fail(key, "not valid base64url") }
        guard b.count == 44, b.starts(with: ed25519SPKIPrefix) else {
            throw fail(key, "not an Ed25519 public key (44-byte SubjectPublicKeyInfo)")
        }
        return s
    }

    func optionalPurchaseKey(_ key: String) throws(WireDecodingError) -> String? {
        has(key) ? try purchaseKey(key) : nil
    }

    func model<M: WireModel>(_ key: String, as type: M.Type = M.self) throws(WireDecodingError) -> M {
        try M(json: try value(key), at: path + [key])
    }

    func optionalModel<M: WireModel>(_ key: String, as type: M.Type = M.self) throws(WireDecodingError) -> M? {
        guard let v = object[key] else { return nil }
        return try M(json: v, at: path + [key])
    }

    func models<M: WireModel>(_ key: String, as type: M.Type = M.self) throws(WireDecodingError) -> [M] {
        let v = try value(key)
        guard case .array(let items) = v else { throw fail(key, "expected an array, found \(v.typeName)") }
        var out: [M] = []
        out.reserveCapacity(items.count)
        for (i, item) in items.enumerated() { out.append(try M(json: item, at: path + [key, String(i)])) }
        return out
    }

    func unknownTag(_ tag: String) -> WireDecodingError {
        fail("type", "unknown type \"\(tag)\"")
    }
}

extension WireObject {
    /// A string member that must be one of `E`'s raw values.
    func enumeration<E: RawRepresentable>(_ key: String, as type: E.Type = E.self) throws(WireDecodingError) -> E where E.RawValue == String {
        let s = try string(key)
        guard let e = E(rawValue: s) else { throw fail(key, "unknown value \"\(s)\"") }
        return e
    }

    func optionalEnumeration<E: RawRepresentable>(_ key: String, as type: E.Type = E.self) throws(WireDecodingError) -> E? where E.RawValue == String {
        has(key) ? try enumeration(key) : nil
    }
}

/// DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): SEQUENCE, AlgorithmIdentifier
/// id-Ed25519, BIT STRING of 33 bytes with 0 unused bits.
let ed25519SPKIPrefix: [UInt8] = [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00]

/// Builds a wire object; members keep the order they are added in.
struct WireBuilder {
    var object = JSONObject()

    init(type: String? = nil) {
        if let type { object.appendNew("type", .string(type)) }
    }

    mutating func add(_ key: String, _ value: JSONValue) { object.appendNew(key, value) }
    mutating func add(_ key: String, _ value: String) { object.appendNew(key, .string(value)) }
    mutating func add(_ key: String, _ value: Int) { object.appendNew(key, .number(JSONNumber(value))) }
    mutating func add(_ key: String, _ value: UInt32) { object.appendNew(key, .number(JSONNumber(Int(value)))) }
    mutating func add(_ key: String, _ value: Timestamp) { object.appendNew(key, .string(RFC3339.format(value))) }
    mutating func add(_ key: String, bytes: [UInt8]) { object.appendNew(key, .string(Base64URL.encode(bytes))) }
    mutating func add(_ key: String, _ value: some WireModel) { object.appendNew(key, value.json) }
    mutating func add(_ key: String, _ values: [some WireModel]) { object.appendNew(key, .array(values.map(\.json))) }

    /// Optional members are omitted when nil, never written as null.
    mutating func add(_ key: String, _ value: String?) { if let value { add(key, value) } }
    mutating func add(_ key: String, _ value: UInt32?) { if let value { add(key, value) } }
    mutating func add(_ key: String, _ value: Timestamp?) { if let value { add(key, value) } }
    mutating func add(_ key: String, _ value: (some WireModel)?) { if let value { add(key, value) } }

    var json: JSONValue { .object(object) }
}
