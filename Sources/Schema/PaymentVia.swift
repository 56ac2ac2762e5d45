import JSON
/// Card payments go through this provider.
public enum CardProvider: String, Hashable, Sendable, CaseIterable {
    case stripe
}

/// Coins crypto invoices accept.
public enum CryptoCurrency: String, Hashable, Sendable, CaseIterable {
    case btc, xmr
}

/// How the client wants to pay an invoice (schema `paymentVia`).
public enum PaymentVia: Hashable, JSONModel {
    case card(provider: CardProvider)
    case crypto(currency: CryptoCurrency)

    public init(json: JSONValue, at path: [String]) throws(JSONDecodingError) {
        let o = try JSONObjectReader(json, at: path)
        switch try o.tag() {
        case "card":
            guard let p = CardProvider(rawValue: try o.string("provider")) else { throw o.fail("provider", "unknown provider") }
            self = .card(provider: p)
        case "crypto":
            guard let c = CryptoCurrency(rawValue: try o.string("currency")) else { throw o.fail("currency", "unknown currency") }
            self = .crypto(currency: c)
        case let tag: throw o.unknownTag(tag)
        }
    }

    public var json: JSONValue {
        switch self {
        case .card(let provider):
            var w = JSONObjectBuilder(type: "card")
            w.add("provider", provider.rawValue)
            return w.json
        case .crypto(let currency):
            var w = JSONObjectBuilder(type: "crypto")
            w.add("currency", currency.rawValue)
            return w.json
        }
    }
}
