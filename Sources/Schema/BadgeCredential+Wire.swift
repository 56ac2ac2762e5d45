import BadgeCore
import JSON

/// The protocol's `credential`: the BBS signature by issuer key `badgeKeyIdx` over the master
/// key and the badge info, which the wire nests as `badgeInfo`. Members in upstream's (aeson's)
/// order, as clients and `issuer sign` print them.
extension BadgeCredential: JSONModel {
    /// The attested part.
    public var badgeInfo: BadgeInfo {
        BadgeInfo(badgeType: badgeType, badgeExpiry: expiry, badgeExtra: extra)
    }

    public init(json: JSONValue, at path: [String]) throws(JSONDecodingError) {
        let o = try JSONObjectReader(json, at: path)
        let keyIndex = try o.int("badgeKeyIdx", in: 0...Int(UInt16.max))
        let masterKey = try o.bytes("masterKey", count: RPCCommand.masterKeyLength, what: "masterKey")
        let signature = try o.bytes("signature")
        let info: BadgeInfo = try o.model("badgeInfo")
        self.init(keyIndex: keyIndex, masterKey: masterKey, signature: signature, badgeType: info.badgeType,
                  expiry: info.badgeExpiry, extra: info.badgeExtra)
    }

    public var json: JSONValue {
        var w = JSONObjectBuilder()
        w.add("badgeKeyIdx", keyIndex)
        w.add("masterKey", bytes: masterKey)
        w.add("signature", bytes: signature)
        w.add("badgeInfo", badgeInfo)
        return w.json
    }
}
