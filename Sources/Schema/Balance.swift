import Ledger

/// The client's assertion of its position: its last ledger entry (schema `balance`).
public struct Balance: Hashable, WireModel {
    public var lastEntry: LedgerEntry

    public init(lastEntry: LedgerEntry) { self.lastEntry = lastEntry }

    public init(json: JSONValue, at path: [String]) throws(WireDecodingError) {
        lastEntry = try WireObject(json, at: path).model("lastEntry")
    }

    public var json: JSONValue {
        var w = WireBuilder()
        w.add("lastEntry", lastEntry)
        return w.json
    }
}
