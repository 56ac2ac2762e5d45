import JSON
/// The badge service RPC schema (`schema/badges-rpc.schema.json`), compiled once from the
/// text embedded in the binary (``text``).
public struct BadgeRPCSchema: Sendable {
    /// The compiled schema.
    public let schema: JTDSchema
    private let requestIndex: Int
    private let responseIndex: Int

    /// The embedded schema, compiled on first use. The text is a constant checked by the
    /// tests, so a failure here is a build defect, not a runtime condition.
    public static let shared: BadgeRPCSchema = {
        do {
            return try BadgeRPCSchema(text: text)
        } catch {
            fatalError("embedded badge RPC schema does not compile: \(error)")
        }
    }()

    /// Compiles a schema text that has definitions `request` and `response` and no recursive
    /// definitions (so validation needs no depth limit and always finishes).
    public init(text: String) throws(JTDSchemaError) {
        schema = try JTDSchema(text: text)
        guard let request = schema.definitionPosition("request"), let response = schema.definitionPosition("response") else {
            throw JTDSchemaError(schemaPath: ["definitions"], reason: "definitions request and response are required")
        }
        guard !schema.hasRecursiveDefinitions else {
            throw JTDSchemaError(schemaPath: ["definitions"], reason: "recursive definitions are not supported here")
        }
        requestIndex = request
        responseIndex = response
    }

    /// Errors of a request envelope against `request`; `maxErrors` 0 collects all.
    public func validateRequest(_ instance: JSONValue, maxErrors: Int = 0) -> [ValidationError] {
        schema.errors(of: instance, againstDefinition: requestIndex, maxErrors: maxErrors)
    }

    /// Errors of a response against `response`; `maxErrors` 0 collects all.
    public func validateResponse(_ instance: JSONValue, maxErrors: Int = 0) -> [ValidationError] {
        schema.errors(of: instance, againstDefinition: responseIndex, maxErrors: maxErrors)
    }

    /// Errors of `instance` against the definition `name` (e.g. `ledgerEntry`); nil when the
    /// schema has no such definition.
    public func validate(_ instance: JSONValue, definition name: String, maxErrors: Int = 0) -> [ValidationError]? {
        guard let index = schema.definitionPosition(name) else { return nil }
        return schema.errors(of: instance, againstDefinition: index, maxErrors: maxErrors)
    }

    /// The definition names, in schema order.
    public var definitionNames: [String] { schema.definitionNames }
}
