import Schema
import Testing

/// The official RFC 8927 test suite (Tests/Fixtures/jtd): 316 validation cases, 49 invalid schemas.
@Suite struct JTDSuiteTests {
    static let validationFile = "jtd/validation.json"
    static let invalidFile = "jtd/invalid_schemas.json"

    static func validationCaseNames() throws -> [String] {
        try ReferenceData.members(validationFile).map(\.key)
    }

    static func invalidSchemaNames() throws -> [String] {
        try ReferenceData.members(invalidFile).map(\.key)
    }

    @Test func suiteSizes() throws {
        #expect(try Self.validationCaseNames().count == 316)
        #expect(try Self.invalidSchemaNames().count == 49)
    }

    @Test(arguments: try validationCaseNames())
    func validation(_ name: String) throws {
        let suite = try ReferenceData.json(Self.validationFile)
        let testCase = try #require(suite[name])
        let schema = try JTDSchema(try #require(testCase["schema"]))
        let errors = try schema.validate(try #require(testCase["instance"]))
        let expected = try #require(testCase["errors"]?.arrayValue).map { e in
            ValidationError(instancePath: e["instancePath"]?.stringArray ?? [], schemaPath: e["schemaPath"]?.stringArray ?? [])
        }
        // Compared as multisets: order of errors is not part of the contract.
        #expect(Multiset(errors) == Multiset(expected), "\(name)")
    }

    @Test(arguments: try invalidSchemaNames())
    func invalidSchema(_ name: String) throws {
        let suite = try ReferenceData.json(Self.invalidFile)
        let schema = try #require(suite[name])
        #expect(throws: JTDSchemaError.self, "\(name)") { try JTDSchema(schema) }
    }
}

/// Counts of equal elements, for order-independent comparison.
struct Multiset<Element: Hashable>: Equatable {
    var counts: [Element: Int] = [:]
    init(_ items: some Sequence<Element>) { for i in items { counts[i, default: 0] += 1 } }
}
