import BadgeCore
import JSON

/// A priced purchase awaiting payment (schema `invoice`); amount = price − discount − credit.
public struct Invoice: Hashable, JSONModel {
    public var invoiceId: String
    /// Minor units, as all amounts.
    public var price: UInt32
    public var discount: UInt32?
    /// The upgrade credit.
    public var credit: UInt32?
    public var amount: UInt32
    public var currency: String
    public var expiresAt: Timestamp
    public var paymentTo: PaymentTo

    public init(invoiceId: String, price: UInt32, discount: UInt32? = nil, credit: UInt32? = nil, amount: UInt32,
                currency: String, expiresAt: Timestamp, paymentTo: PaymentTo) {
        self.invoiceId = invoiceId
        self.price = price
        self.discount = discount
        self.credit = credit
        self.amount = amount
        self.currency = currency
        self.expiresAt = expiresAt
        self.paymentTo = paymentTo
    }

    public init(json: JSONValue, at path: [String]) throws(JSONDecodingError) {
        let o = try JSONObjectReader(json, at: path)
        invoiceId = try o.string("invoiceId")
        price = try o.uint32("price")
        discount = try o.optionalUInt32("discount")
        credit = try o.optionalUInt32("credit")
        amount = try o.uint32("amount")
        currency = try o.string("currency")
        expiresAt = try o.timestamp("expiresAt")
        paymentTo = try o.model("paymentTo")
    }

    public var json: JSONValue {
        var w = JSONObjectBuilder()
        w.add("invoiceId", invoiceId)
        w.add("price", price)
        w.add("discount", discount)
        w.add("credit", credit)
        w.add("amount", amount)
        w.add("currency", currency)
        w.add("expiresAt", expiresAt)
        w.add("paymentTo", paymentTo)
        return w.json
    }
}

/// Where an invoice is paid (schema `paymentTo`).
public enum PaymentTo: Hashable, JSONModel {
    /// A hosted checkout page.
    case card(provider: CardProvider, url: String)
    /// An address and the amount in the coin's whole units, as decimal text.
    case crypto(currency: CryptoCurrency, address: String, cryptoAmount: String)

    public init(json: JSONValue, at path: [String]) throws(JSONDecodingError) {
        let o = try JSONObjectReader(json, at: path)
        switch try o.tag() {
        case "card":
            self = .card(provider: try o.enumeration("provider"), url: try o.string("url"))
        case "crypto":
            self = .crypto(currency: try o.enumeration("currency"), address: try o.string("address"),
                           cryptoAmount: try o.string("cryptoAmount"))
        case let tag:
            throw o.unknownTag(tag)
        }
    }

    public var json: JSONValue {
        switch self {
        case .card(let provider, let url):
            var w = JSONObjectBuilder(type: "card")
            w.add("provider", provider.rawValue)
            w.add("url", url)
            return w.json
        case .crypto(let currency, let address, let cryptoAmount):
            var w = JSONObjectBuilder(type: "crypto")
            w.add("currency", currency.rawValue)
            w.add("address", address)
            w.add("cryptoAmount", cryptoAmount)
            return w.json
        }
    }
}
