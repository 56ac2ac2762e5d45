import JSON
/// One RPC command (schema `command`), tagged by `"type"` on the wire.
public enum RPCCommand: Hashable, JSONModel {
    case getBadgeCatalog
    /// Not built; `offerId` nil buys one month at the price.
    case getBadgeInvoice(priceId: String, offerId: String?, badgeInfo: BadgeInfo, paymentVia: PaymentVia, upgrade: UpgradeProof?)
    /// `masterKey` is 32 bytes.
    case redeemBadgeCode(masterKey: [UInt8], code: String)
    /// `masterKey` is 32 bytes; an `upgrade` is refused (not built).
    case purchaseBadge(masterKey: [UInt8], payment: Payment, upgrade: UpgradeProof?)
    case upgradeBadgeSubscription(payment: Payment, balance: Balance)
    case issueBadge(balance: Balance)
    /// Post-MVP.
    case pauseBadge
    /// `masterKey` is 32 bytes: the new purchase's.
    case transferBadge(masterKey: [UInt8], payment: Payment)

    /// The wire tag, for logs and metrics labels.
    public var name: String {
        switch self {
        case .getBadgeCatalog: "getBadgeCatalog"
        case .getBadgeInvoice: "getBadgeInvoice"
        case .redeemBadgeCode: "redeemBadgeCode"
        case .purchaseBadge: "purchaseBadge"
        case .upgradeBadgeSubscription: "upgradeBadgeSubscription"
        case .issueBadge: "issueBadge"
        case .pauseBadge: "pauseBadge"
        case .transferBadge: "transferBadge"
        }
    }

    /// Whether the envelope must carry (and be signed with) a purchase key: every command but
    /// getBadgeCatalog, which is unsigned without one (spec, Identity). Not a schema rule, so
    /// the gateway checks it beside the signature.
    public var requiresPurchaseKey: Bool {
        if case .getBadgeCatalog = self { return false }
        return true
    }

    /// Every command name, e.g. to pre-register metrics.
    public static let names = ["getBadgeCatalog", "getBadgeInvoice", "redeemBadgeCode", "purchaseBadge",
                               "upgradeBadgeSubscription", "issueBadge", "pauseBadge", "transferBadge"]

    /// Length of a credential master key.
    public static let masterKeyLength = 32

    public init(json: JSONValue, at path: [String]) throws(JSONDecodingError) {
        let o = try JSONObjectReader(json, at: path)
        func masterKey() throws(JSONDecodingError) -> [UInt8] {
            try o.bytes("masterKey", count: Self.masterKeyLength, what: "masterKey")
        }
        switch try o.tag() {
        case "getBadgeCatalog":
            self = .getBadgeCatalog
        case "getBadgeInvoice":
            self = .getBadgeInvoice(priceId: try o.string("priceId"), offerId: try o.optionalString("offerId"),
                                    badgeInfo: try o.model("badgeInfo"), paymentVia: try o.model("paymentVia"),
                                    upgrade: try o.optionalModel("upgrade"))
        case "redeemBadgeCode":
            self = .redeemBadgeCode(masterKey: try masterKey(), code: try o.string("code"))
        case "purchaseBadge":
            self = .purchaseBadge(masterKey: try masterKey(), payment: try o.model("payment"), upgrade: try o.optionalModel("upgrade"))
        case "upgradeBadgeSubscription":
            self = .upgradeBadgeSubscription(payment: try o.model("payment"), balance: try o.model("balance"))
        case "issueBadge":
            self = .issueBadge(balance: try o.model("balance"))
        case "pauseBadge":
            self = .pauseBadge
        case "transferBadge":
            self = .transferBadge(masterKey: try masterKey(), payment: try o.model("payment"))
        case let tag:
            throw o.unknownTag(tag)
        }
    }

    public var json: JSONValue {
        var w = JSONObjectBuilder(type: name)
        switch self {
        case .getBadgeCatalog, .pauseBadge:
            break
        case .getBadgeInvoice(let priceId, let offerId, let badgeInfo, let paymentVia, let upgrade):
            w.add("priceId", priceId)
            w.add("offerId", offerId)
            w.add("badgeInfo", badgeInfo)
            w.add("paymentVia", paymentVia)
            w.add("upgrade", upgrade)
        case .redeemBadgeCode(let masterKey, let code):
            w.add("masterKey", bytes: masterKey)
            w.add("code", code)
        case .purchaseBadge(let masterKey, let payment, let upgrade):
            w.add("masterKey", bytes: masterKey)
            w.add("payment", payment)
            w.add("upgrade", upgrade)
        case .upgradeBadgeSubscription(let payment, let balance):
            w.add("payment", payment)
            w.add("balance", balance)
        case .issueBadge(let balance):
            w.add("balance", balance)
        case .transferBadge(let masterKey, let payment):
            w.add("masterKey", bytes: masterKey)
            w.add("payment", payment)
        }
        return w.json
    }
}
