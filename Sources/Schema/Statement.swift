import JSON
import Ledger

/// Ledger entries for the client's replica (schema `statement`): `Ledger.Statement` on the wire.
extension Statement: JSONModel {
    public init(json: JSONValue, at path: [String]) throws(JSONDecodingError) {
        let o = try JSONObjectReader(json, at: path)
        self.init(entries: try o.models("entries"), previousEntryId: try o.optionalString("previousEntryId"))
    }

    public var json: JSONValue {
        var w = JSONObjectBuilder()
        w.add("entries", entries)
        w.add("previousEntryId", previousEntryId)
        return w.json
    }
}
