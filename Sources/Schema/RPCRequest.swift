import JSON
/// The request envelope (schema `request`).
public struct RPCRequest: Hashable, JSONModel {
    /// The client's protocol version.
    public var version: Int
    /// The purchase key exactly as the client spelled it (padded base64url of the Ed25519
    /// SubjectPublicKeyInfo); nil only for an unsigned getBadgeCatalog. It must equal the
    /// verified signer key, compared as text.
    public var purchaseKey: String?
    public var command: RPCCommand

    public init(version: Int = 1, purchaseKey: String?, command: RPCCommand) {
        self.version = version
        self.purchaseKey = purchaseKey
        self.command = command
    }

    public init(json: JSONValue, at path: [String]) throws(JSONDecodingError) {
        let o = try JSONObjectReader(json, at: path)
        version = try o.int("version", in: 0...Int(UInt16.max))
        purchaseKey = try o.optionalPurchaseKey("purchaseKey")
        command = try o.model("request")
    }

    public var json: JSONValue {
        var w = JSONObjectBuilder()
        w.add("version", version)
        w.add("purchaseKey", purchaseKey)
        w.add("request", command)
        return w.json
    }
}
