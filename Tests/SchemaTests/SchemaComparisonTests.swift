import JSON
import Schema
import Testing

/// Our schema against the reconstructed upstream one (Tests/Fixtures/reference-schema):
/// same definitions, same wire shapes, metadata aside.
@Suite struct SchemaComparisonTests {
    /// Definitions whose shape deliberately differs from the reference, with the spec passage
    /// that decides it. Empty: our schema has exactly the reference's wire shapes.
    ///
    /// Considered and not adopted: the spec lists purchaseBadge.upgrade as "fromPurchaseKey,
    /// receipt, receiptSignature" without the balance getBadgeInvoice.upgrade carries; both
    /// schemas share one `upgrade` definition (balance required). The spec does not say
    /// purchaseBadge's upgrade lacks a balance, and both upgrades are not built (purchaseBadge
    /// with an upgrade is answered bad_request either way), so the shared shape is kept.
    static let intendedDifferences: [String: String] = [:]

    @Test func sameDefinitionsAndShapes() throws {
        let ours = try #require(try JSONValue.parse(ProjectSchema.bytes())["definitions"]?.objectValue)
        let reference = try #require(try ReferenceData.json("reference-schema/badges-rpc.schema.json")["definitions"]?.objectValue)
        #expect(Set(ours.keys) == Set(reference.keys))
        for name in Set(ours.keys).union(reference.keys) {
            let a = ours[name].map(SchemaShape.strip)
            let b = reference[name].map(SchemaShape.strip)
            if let reason = Self.intendedDifferences[name] {
                #expect(a != b, "\(name) is listed as different (\(reason)) but is identical")
            } else {
                #expect(a == b, "definition \(name) differs from the reference")
            }
        }
    }

    /// The comparison is not vacuous: it notices a changed type, a dropped optional field, a
    /// renamed tag, and ignores metadata and member order.
    @Test func comparisonDetectsChanges() throws {
        let base: JSONValue = ["properties": ["a": ["type": "uint8"]], "optionalProperties": ["b": ["type": "string"]]]
        let reordered: JSONValue = ["metadata": ["x": 1], "optionalProperties": ["b": ["type": "string", "metadata": [:]]],
                                    "properties": ["a": ["type": "uint8"]]]
        #expect(SchemaShape.strip(base) == SchemaShape.strip(reordered))
        #expect(SchemaShape.strip(base) != SchemaShape.strip(["properties": ["a": ["type": "uint16"]], "optionalProperties": ["b": ["type": "string"]]]))
        #expect(SchemaShape.strip(base) != SchemaShape.strip(["properties": ["a": ["type": "uint8"]]]))
        let tagged: JSONValue = ["discriminator": "type", "mapping": ["x": ["properties": [:]]]]
        #expect(SchemaShape.strip(tagged) != SchemaShape.strip(["discriminator": "type", "mapping": ["y": ["properties": [:]]]]))
        // A property named "metadata" is data, not a keyword, and is kept.
        #expect(SchemaShape.strip(["properties": ["metadata": [:]]]) != SchemaShape.strip(["properties": [:]]))
    }
}

/// A schema without its `metadata` keywords (at schema positions only), for structural comparison.
enum SchemaShape {
    static func strip(_ schema: JSONValue) -> JSONValue {
        guard case .object(let o) = schema else { return schema }
        var out = JSONObject()
        for m in o where m.key != "metadata" {
            switch m.key {
            case "properties", "optionalProperties", "mapping", "definitions":
                var sub = JSONObject()
                for s in m.value.objectValue ?? JSONObject() { sub[s.key] = strip(s.value) }
                out[m.key] = .object(sub)
            case "elements", "values":
                out[m.key] = strip(m.value)
            default:
                out[m.key] = m.value
            }
        }
        return .object(out)
    }
}
