import Foundation
import JSON
import Schema
import TestSupport

/// Fixture files, read through `Repository.fixture` (missing data fails the test).
enum ReferenceData {
    /// A reference JSON file parsed by our own parser (the suite files are strict JSON).
    static func json(_ relative: String) throws -> JSONValue {
        try JSONValue.parse([UInt8](Repository.fixtureData(relative)))
    }

    /// Members of a top-level object file, in file order.
    static func members(_ relative: String) throws -> [JSONObject.Member] {
        guard case .object(let o) = try json(relative) else { throw Malformed(what: relative) }
        return o.members
    }

    struct Malformed: Error, CustomStringConvertible {
        let what: String
        var description: String { "malformed reference data: \(what)" }
    }
}

extension JSONValue {
    /// The array of strings at this value, as error paths are written in the suite.
    var stringArray: [String]? {
        arrayValue?.compactMap(\.stringValue)
    }
}

/// The upstream example documents (Tests/Fixtures/examples): wrapper objects with `definition` and `document`.
enum Examples {
    /// The one example that is deliberately invalid (an unknown future ledger credit type).
    static let deliberatelyInvalid = "ledgerCredit.unknown-future-type.json"

    static func names() throws -> [String] {
        let dir = try Repository.fixture("examples")
        return try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }.sorted()
    }

    /// (definition, document) of one example file.
    static func load(_ name: String) throws -> (definition: String, document: JSONValue) {
        let wrapper = try ReferenceData.json("examples/" + name)
        guard let definition = wrapper["definition"]?.stringValue, let document = wrapper["document"] else {
            throw ReferenceData.Malformed(what: name)
        }
        return (definition, document)
    }
}

/// The project's own schema file, `schema/badges-rpc.schema.json`.
enum ProjectSchema {
    static var fileURL: URL { Repository.root.appendingPathComponent("schema/badges-rpc.schema.json") }

    static func bytes() throws -> [UInt8] { [UInt8](try Data(contentsOf: fileURL)) }
}
