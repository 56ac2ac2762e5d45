import JSON
import Schema

/// The wallet routes' contract (`schema/wallet.schema.json`), compiled once from the text
/// embedded in the binary (``text``); request bodies are validated against it as `/rpc`'s are.
public struct WalletSchema: Sendable {
    public let schema: JTDSchema

    /// The embedded schema. The text is a constant the tests check, so a failure here is a
    /// build defect, not a runtime condition.
    public static let shared: WalletSchema = {
        do { return try WalletSchema(text: text) } catch { fatalError("embedded wallet schema does not compile: \(error)") }
    }()

    /// Compiles a schema without recursive definitions, so validation always finishes.
    public init(text: String) throws(JTDSchemaError) {
        schema = try JTDSchema(text: text)
        guard !schema.hasRecursiveDefinitions else {
            throw JTDSchemaError(schemaPath: ["definitions"], reason: "recursive definitions are not supported here")
        }
    }

    /// Errors of `instance` against the definition `name` (`[]`: valid); nil when there is no such definition.
    public func validate(_ instance: JSONValue, definition name: String) -> [ValidationError]? {
        do { return try schema.validate(instance, definition: name) } catch {
            // Unreachable without recursive definitions; an instance that got here is refused.
            return [ValidationError(instancePath: [], schemaPath: ["definitions", name])]
        }
    }
}
