import Ledger

/// Ledger entries for the client's replica (schema `statement`): `Ledger.Statement` on the wire.
extension Statement: WireModel {
    public init(json: JSONValue, at path: [String]) throws(WireDecodingError) {
        let o = try WireObject(json, at: path)
        self.init(entries: try o.models("entries"), previousEntryId: try o.optionalString("previousEntryId"))
    }

    public var json: JSONValue {
        var w = WireBuilder()
        w.add("entries", entries)
        w.add("previousEntryId", previousEntryId)
        return w.json
    }
}
