import JSON
/// One way an instance fails a JTD schema (RFC 8927 §3.3): where in the instance, and which
/// part of the schema rejected it, both as unescaped JSON Pointer tokens.
///
/// Equality and hashing compare the two paths only, which is all RFC 8927 defines; `reason`
/// is an explanation for people.
public struct ValidationError: Hashable, Sendable, CustomStringConvertible {
    public let instancePath: [String]
    public let schemaPath: [String]
    /// What was wrong, when the validator produced the error.
    public let reason: Reason?

    /// The rule an instance broke.
    public enum Reason: Hashable, Sendable {
        case wrongType(JTDType)
        case notInEnum
        case notArray
        case notObject
        case missingProperty(String)
        case additionalProperty(String)
        case missingTag(String)
        case tagNotString(String)
        case unknownTagValue(tag: String, value: String)
    }

    public init(instancePath: [String], schemaPath: [String], reason: Reason? = nil) {
        self.instancePath = instancePath
        self.schemaPath = schemaPath
        self.reason = reason
    }

    public static func == (a: ValidationError, b: ValidationError) -> Bool {
        a.instancePath == b.instancePath && a.schemaPath == b.schemaPath
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(instancePath)
        hasher.combine(schemaPath)
    }

    /// The instance path as a JSON Pointer, e.g. `/request/masterKey`.
    public var instancePointer: String { JSONPointer.format(instancePath) }
    /// The schema path as a JSON Pointer, e.g. `/definitions/command/mapping/redeemBadgeCode/properties/code`.
    public var schemaPointer: String { JSONPointer.format(schemaPath) }

    /// A short phrase for `reason`.
    public var reasonText: String {
        switch reason {
        case .wrongType(let t)?:
            switch t {
            case .timestamp: "expected an RFC 3339 timestamp"
            case .string: "expected a string"
            case .boolean: "expected a boolean"
            case .float32, .float64: "expected a number"
            default: "expected an integer of type \(t.rawValue)"
            }
        case .notInEnum?: "not one of the allowed values"
        case .notArray?: "expected an array"
        case .notObject?: "expected an object"
        case .missingProperty(let k)?: "missing member \"\(k)\""
        case .additionalProperty(let k)?: "unexpected member \"\(k)\""
        case .missingTag(let tag)?: "missing member \"\(tag)\""
        case .tagNotString(let tag)?: "member \"\(tag)\" must be a string"
        case .unknownTagValue(let tag, let value)?: "unknown \(tag) \"\(value)\""
        case nil: "rejected by the schema at \(schemaPointer)"
        }
    }

    public var description: String { "\(instancePointer.isEmpty ? "/" : instancePointer): \(reasonText)" }
}

/// Limits of one validation, as the reference JTD implementations offer them.
public struct JTDValidationOptions: Sendable, Hashable {
    /// Most refs followed at once (nested); 0 = no limit. Exceeding it aborts validation with
    /// ``JTDMaxDepthExceeded`` — it guards against schemas such as `{"definitions":{"a":{"ref":"a"}},"ref":"a"}`.
    public var maxDepth: Int
    /// Stop after this many errors; 0 = collect all.
    public var maxErrors: Int

    public init(maxDepth: Int = 0, maxErrors: Int = 0) {
        self.maxDepth = maxDepth
        self.maxErrors = maxErrors
    }
}

/// Validation followed more nested refs than ``JTDValidationOptions/maxDepth`` allows.
public struct JTDMaxDepthExceeded: Error, Hashable, Sendable, CustomStringConvertible {
    public let maxDepth: Int
    public init(maxDepth: Int) { self.maxDepth = maxDepth }
    public var description: String { "JTD validation followed more than \(maxDepth) nested refs" }
}
