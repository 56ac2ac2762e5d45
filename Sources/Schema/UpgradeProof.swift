import JSON
/// Proof of the purchase an upgrade converts (schema `upgrade`): the old key, its receipt,
/// a signature by the old key binding it to the new one, and the old balance.
public struct UpgradeProof: Hashable, JSONModel {
    public var fromPurchaseKey: String
    public var receipt: String
    /// Ed25519 signature, 64 bytes.
    public var receiptSignature: [UInt8]
    public var balance: Balance

    public init(fromPurchaseKey: String, receipt: String, receiptSignature: [UInt8], balance: Balance) {
        self.fromPurchaseKey = fromPurchaseKey
        self.receipt = receipt
        self.receiptSignature = receiptSignature
        self.balance = balance
    }

    /// What `receiptSignature` signs with the old purchase's key (docs/protocol.md, Upgrades): the
    /// UTF-8 lines `badge-service upgrade`, the old key, the new key (both canonical purchase key
    /// text) and the receipt, joined by line feeds — so a signature binds this receipt to one new key.
    public static func signedMessage(fromPurchaseKey: String, toPurchaseKey: String, receipt: String) -> [UInt8] {
        Array("badge-service upgrade\n\(fromPurchaseKey)\n\(toPurchaseKey)\n\(receipt)".utf8)
    }

    public init(json: JSONValue, at path: [String]) throws(JSONDecodingError) {
        let o = try JSONObjectReader(json, at: path)
        fromPurchaseKey = try o.purchaseKey("fromPurchaseKey")
        receipt = try o.string("receipt")
        receiptSignature = try o.bytes("receiptSignature", count: 64, what: "an Ed25519 signature")
        balance = try o.model("balance")
    }

    public var json: JSONValue {
        var w = JSONObjectBuilder()
        w.add("fromPurchaseKey", fromPurchaseKey)
        w.add("receipt", receipt)
        w.add("receiptSignature", bytes: receiptSignature)
        w.add("balance", balance)
        return w.json
    }
}
