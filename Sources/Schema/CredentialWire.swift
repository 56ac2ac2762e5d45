import BadgeCore

/// A badge credential as it travels (schema `credential`): the BBS signature by issuer key
/// `badgeKeyIdx` over the master key and the badge info, which the wire nests as `badgeInfo`.
public struct CredentialWire: Hashable, WireModel {
    /// 0 ... 65535.
    public var badgeKeyIdx: Int
    /// 32 bytes.
    public var masterKey: [UInt8]
    /// The BBS signature (80 bytes for BLS12-381-SHA-256).
    public var signature: [UInt8]
    public var badgeType: BadgeType
    public var badgeExpiry: Timestamp
    /// Reserved; empty.
    public var badgeExtra: String

    public init(badgeKeyIdx: Int, masterKey: [UInt8], signature: [UInt8], badgeType: BadgeType, badgeExpiry: Timestamp,
                badgeExtra: String = "") {
        self.badgeKeyIdx = badgeKeyIdx
        self.masterKey = masterKey
        self.signature = signature
        self.badgeType = badgeType
        self.badgeExpiry = badgeExpiry
        self.badgeExtra = badgeExtra
    }

    /// The attested part.
    public var badgeInfo: BadgeInfo {
        BadgeInfo(badgeType: badgeType, badgeExpiry: badgeExpiry, badgeExtra: badgeExtra)
    }

    public init(json: JSONValue, at path: [String]) throws(WireDecodingError) {
        let o = try WireObject(json, at: path)
        badgeKeyIdx = try o.int("badgeKeyIdx", in: 0...Int(UInt16.max))
        masterKey = try o.bytes("masterKey", count: RPCCommand.masterKeyLength, what: "masterKey")
        signature = try o.bytes("signature")
        let info: BadgeInfo = try o.model("badgeInfo")
        badgeType = info.badgeType
        badgeExpiry = info.badgeExpiry
        badgeExtra = info.badgeExtra
    }

    public var json: JSONValue {
        var w = WireBuilder()
        w.add("badgeKeyIdx", badgeKeyIdx)
        w.add("masterKey", bytes: masterKey)
        w.add("signature", bytes: signature)
        w.add("badgeInfo", badgeInfo)
        return w.json
    }
}
