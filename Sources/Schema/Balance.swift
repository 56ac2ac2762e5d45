import JSON
import Ledger

/// The client's assertion of its position: its last ledger entry (schema `balance`).
public struct Balance: Hashable, JSONModel {
    public var lastEntry: LedgerEntry

    public init(lastEntry: LedgerEntry) { self.lastEntry = lastEntry }

    public init(json: JSONValue, at path: [String]) throws(JSONDecodingError) {
        lastEntry = try JSONObjectReader(json, at: path).model("lastEntry")
    }

    public var json: JSONValue {
        var w = JSONObjectBuilder()
        w.add("lastEntry", lastEntry)
        return w.json
    }
}
