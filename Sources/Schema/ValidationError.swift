/// One way an instance fails a JTD schema (RFC 8927 §3.3): where in the instance, and which
/// part of the schema rejected it, both as unescaped JSON Pointer tokens.
public struct ValidationError: Hashable, Sendable, CustomStringConvertible {
    public let instancePath: [String]
    public let schemaPath: [String]

    public init(instancePath: [String], schemaPath: [String]) {
        self.instancePath = instancePath
        self.schemaPath = schemaPath
    }

    /// The instance path as a JSON Pointer, e.g. `/request/masterKey`.
    public var instancePointer: String { JSONPointer.format(instancePath) }
    /// The schema path as a JSON Pointer, e.g. `/definitions/command/mapping/redeemBadgeCode/properties/code`.
    public var schemaPointer: String { JSONPointer.format(schemaPath) }

    public var description: String { "\(instancePointer.isEmpty ? "/" : instancePointer) rejected by \(schemaPointer)" }
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
    public var description: String { "JTD validation followed more than \(maxDepth) nested refs" }
}
