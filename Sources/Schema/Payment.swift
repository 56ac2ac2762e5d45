import JSON
/// Evidence of payment (schema `payment`).
public enum Payment: Hashable, JSONModel {
    /// An App Store signed transaction (compact JWS, parts base64url unpadded).
    case apple(jws: String)
    /// A Play product (or subscription) id and purchase token.
    case google(productId: String, token: String)
    /// A card or crypto invoice (not built).
    case invoice(invoiceId: String)
    /// A recovery receipt moving another purchase's unissued months (post-MVP).
    case receipt(receipt: String)

    /// The wire tag, e.g. for logs.
    public var typeName: String {
        switch self {
        case .apple: "apple"
        case .google: "google"
        case .invoice: "invoice"
        case .receipt: "receipt"
        }
    }

    public init(json: JSONValue, at path: [String]) throws(JSONDecodingError) {
        let o = try JSONObjectReader(json, at: path)
        switch try o.tag() {
        case "apple": self = .apple(jws: try o.string("jws"))
        case "google": self = .google(productId: try o.string("productId"), token: try o.string("token"))
        case "invoice": self = .invoice(invoiceId: try o.string("invoiceId"))
        case "receipt": self = .receipt(receipt: try o.string("receipt"))
        case let tag: throw o.unknownTag(tag)
        }
    }

    public var json: JSONValue {
        var w = JSONObjectBuilder(type: typeName)
        switch self {
        case .apple(let jws): w.add("jws", jws)
        case .google(let productId, let token): w.add("productId", productId); w.add("token", token)
        case .invoice(let invoiceId): w.add("invoiceId", invoiceId)
        case .receipt(let receipt): w.add("receipt", receipt)
        }
        return w.json
    }
}
