import BadgeCore
import JSON
import Ledger

/// Wire form of the schema's `ledgerEntry` (the `Ledger` module's data definition).
extension LedgerEntry: JSONModel {
    public init(json: JSONValue, at path: [String]) throws(JSONDecodingError) {
        let o = try JSONObjectReader(json, at: path)
        self.init(
            entryId: try o.string("entryId"),
            changeMonths: try o.int("changeMonths", in: Int(Int16.min)...Int(Int16.max)),
            balanceMonths: try o.int("balanceMonths", in: 0...Int(UInt16.max)),
            balanceStartTs: try o.timestamp("balanceStartTs"),
            balanceAnchorTs: try o.timestamp("balanceAnchorTs"),
            balanceBadgeType: BadgeType(rawValue: try o.string("balanceBadgeType")),
            wasPausedSince: try o.optionalTimestamp("wasPausedSince"),
            createdAt: try o.timestamp("createdAt"),
            entryType: try o.model("entryType"))
    }

    public var json: JSONValue {
        var w = JSONObjectBuilder()
        w.add("entryId", entryId)
        w.add("changeMonths", changeMonths)
        w.add("balanceMonths", balanceMonths)
        w.add("balanceStartTs", balanceStartTs)
        w.add("balanceAnchorTs", balanceAnchorTs)
        w.add("balanceBadgeType", balanceBadgeType.rawValue)
        w.add("wasPausedSince", wasPausedSince)
        w.add("createdAt", createdAt)
        w.add("entryType", entryType)
        return w.json
    }
}

/// `{"type": "credit", "credit": {…}}` or `{"type": "debit", "debit": {…}}`.
extension LedgerEntryType: JSONModel {
    public init(json: JSONValue, at path: [String]) throws(JSONDecodingError) {
        let o = try JSONObjectReader(json, at: path)
        switch try o.tag() {
        case "credit": self = .credit(try o.model("credit"))
        case "debit": self = .debit(try o.model("debit"))
        case let tag: throw o.unknownTag(tag)
        }
    }

    public var json: JSONValue {
        switch self {
        case .credit(let c):
            var w = JSONObjectBuilder(type: "credit")
            w.add("credit", c)
            return w.json
        case .debit(let d):
            var w = JSONObjectBuilder(type: "debit")
            w.add("debit", d)
            return w.json
        }
    }
}

/// Schema `ledgerCredit`. Unknown types are refused: a service never sends one, and the
/// schema rejects them before decoding.
extension LedgerCredit: JSONModel {
    public init(json: JSONValue, at path: [String]) throws(JSONDecodingError) {
        let o = try JSONObjectReader(json, at: path)
        switch try o.tag() {
        case "payment": self = .payment(invoiceId: try o.optionalString("invoiceId"))
        case "code": self = .code
        case "charge": self = .charge(chargeId: try o.string("chargeId"))
        case "support": self = .support
        case "transferIn": self = .transferIn(fromPurchaseKey: try o.purchaseKey("fromPurchaseKey"))
        case "opening": self = .opening
        case let tag: throw o.unknownTag(tag)
        }
    }

    /// The wire tag.
    public var typeName: String {
        switch self {
        case .payment: "payment"
        case .code: "code"
        case .charge: "charge"
        case .support: "support"
        case .transferIn: "transferIn"
        case .opening: "opening"
        }
    }

    public var json: JSONValue {
        var w = JSONObjectBuilder(type: typeName)
        switch self {
        case .payment(let invoiceId): w.add("invoiceId", invoiceId)
        case .charge(let chargeId): w.add("chargeId", chargeId)
        case .transferIn(let key): w.add("fromPurchaseKey", key)
        case .code, .support, .opening: break
        }
        return w.json
    }
}

/// Schema `ledgerDebit`.
extension LedgerDebit: JSONModel {
    public init(json: JSONValue, at path: [String]) throws(JSONDecodingError) {
        let o = try JSONObjectReader(json, at: path)
        switch try o.tag() {
        case "refund": self = .refund
        case "upgrade": self = .upgrade(toPurchaseKey: try o.purchaseKey("toPurchaseKey"))
        case "transferOut": self = .transferOut(toPurchaseKey: try o.purchaseKey("toPurchaseKey"))
        case "support": self = .support
        case "badge": self = .badge
        case "lapse": self = .lapse
        case let tag: throw o.unknownTag(tag)
        }
    }

    /// The wire tag.
    public var typeName: String {
        switch self {
        case .refund: "refund"
        case .upgrade: "upgrade"
        case .transferOut: "transferOut"
        case .support: "support"
        case .badge: "badge"
        case .lapse: "lapse"
        }
    }

    public var json: JSONValue {
        var w = JSONObjectBuilder(type: typeName)
        switch self {
        case .upgrade(let key), .transferOut(let key): w.add("toPurchaseKey", key)
        case .refund, .support, .badge, .lapse: break
        }
        return w.json
    }
}
