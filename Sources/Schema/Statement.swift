import Ledger

/// Ledger entries for the client's replica (schema `statement`).
public struct Statement: Hashable, WireModel {
    public var entries: [LedgerEntry]
    /// The entry these follow; nil when they attach to nothing (full history or an opening entry).
    public var previousEntryId: String?

    public init(entries: [LedgerEntry], previousEntryId: String? = nil) {
        self.entries = entries
        self.previousEntryId = previousEntryId
    }

    public init(json: JSONValue, at path: [String]) throws(WireDecodingError) {
        let o = try WireObject(json, at: path)
        entries = try o.models("entries")
        previousEntryId = try o.optionalString("previousEntryId")
    }

    public var json: JSONValue {
        var w = WireBuilder()
        w.add("entries", entries)
        w.add("previousEntryId", previousEntryId)
        return w.json
    }
}
