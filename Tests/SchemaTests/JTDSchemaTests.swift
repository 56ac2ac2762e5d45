import JSON
import Schema
import Testing

/// Our validator beyond the official suite: options, schema error reporting, exact strings.
@Suite struct JTDSchemaTests {
    @Test func maxDepthStopsRefLoops() throws {
        let loop = try JTDSchema(["definitions": ["a": ["ref": "a"]], "ref": "a"])
        #expect(throws: JTDMaxDepthExceeded(maxDepth: 32)) { try loop.validate(nil, options: .init(maxDepth: 32)) }
        #expect(loop.hasRecursiveDefinitions)
        // Recursion through structure is bounded by the instance and works without a limit.
        let tree = try JTDSchema(["definitions": ["node": ["elements": ["ref": "node"]]], "ref": "node"])
        #expect(try tree.validate([[[]], [[[]]]]) == [])
        #expect(try tree.validate([[1]]) == [ValidationError(instancePath: ["0", "0"], schemaPath: ["definitions", "node", "elements"])])
    }

    @Test func maxErrorsStopsEarly() throws {
        let schema = try JTDSchema(["elements": ["type": "string"]])
        let instance = JSONValue.array(Array(repeating: 1, count: 100))
        #expect(try schema.validate(instance).count == 100)
        #expect(try schema.validate(instance, options: .init(maxErrors: 3)).map(\.instancePath) == [["0"], ["1"], ["2"]])
    }

    @Test(arguments: [
        (["metadata": 1] as JSONValue, "/metadata"),
        (["type": "string", "nullable": "yes"], "/nullable"),
        (["properties": ["a": ["definitions": [:]]]], "/properties/a/definitions"),
        (["definitions": ["x": ["ref": "y"]]], "/definitions/x/ref"),
        (["enum": ["a", "b", "a"]], "/enum/2"),
        (["discriminator": "t", "mapping": ["v": ["properties": ["t": [:]]]]], "/mapping/v"),
        (["discriminator": "t", "mapping": ["v": ["nullable": true, "properties": [:]]]], "/mapping/v/nullable"),
        (["elements": ["typ": "string"]], "/elements/typ"),
        (["optionalProperties": ["a": [:]], "properties": ["a": [:]]], "/optionalProperties/a"),
    ] as [(JSONValue, String)])
    func schemaErrorsNamePositions(_ schema: JSONValue, _ pointer: String) {
        do {
            _ = try JTDSchema(schema)
            Issue.record("accepted \(schema)")
        } catch {
            #expect(JSONPointer.format(error.schemaPath) == pointer, "\(error)")
        }
    }

    @Test func acceptedSchemaDetails() throws {
        // nullable: false is allowed on a mapping value; additionalProperties allows extras.
        let schema = try JTDSchema(["discriminator": "t", "mapping": ["v": ["nullable": false, "properties": [:], "additionalProperties": true]]])
        #expect(try schema.validate(["t": "v", "extra": 1]) == [])
        #expect(try schema.validate(["t": "w"]) == [ValidationError(instancePath: ["t"], schemaPath: ["mapping"])])
    }

    /// Names and enum values compare by bytes: a canonically equivalent spelling is a different string.
    @Test func exactStringComparison() throws {
        let schema = try JTDSchema(["properties": ["\u{E9}": ["enum": ["\u{E9}"]]]])
        #expect(try schema.validate(["\u{E9}": "\u{E9}"]) == [])
        #expect(try schema.validate(["\u{E9}": "e\u{301}"]).map(\.schemaPath) == [["properties", "\u{E9}", "enum"]])
        #expect(try Set(schema.validate(["e\u{301}": "\u{E9}"])) == [
            ValidationError(instancePath: [], schemaPath: ["properties", "\u{E9}"]),
            ValidationError(instancePath: ["e\u{301}"], schemaPath: []),
        ])
    }

    /// Integer types use the literal's integrality: 1.0 is an integer, 1.0000000000000000001 is not.
    @Test func integersAreExact() throws {
        let schema = try JTDSchema(["type": "uint32"])
        for (text, valid) in [("1.0", true), ("4294967295", true), ("4294967295.0000001", false), ("4294967296", false),
                              ("1.0000000000000000001", false), ("-0", true), ("1e2", true), ("1e-2", false)] {
            #expect(try schema.validate(JSONValue.parse(text)).isEmpty == valid, "\(text)")
        }
    }

    @Test func errorPointersEscape() {
        let e = ValidationError(instancePath: ["a/b", "c~d"], schemaPath: [])
        #expect(e.instancePointer == "/a~1b/c~0d")
    }
}
