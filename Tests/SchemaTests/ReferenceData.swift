import Foundation
import Schema
import TestSupport

/// Shared reference files, read through `Repository.reference` (missing data fails the test).
enum ReferenceData {
    /// A reference JSON file parsed by our own parser (the suite files are strict JSON).
    static func json(_ relative: String) throws -> JSONValue {
        try JSONValue.parse([UInt8](Repository.referenceData(relative)))
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
