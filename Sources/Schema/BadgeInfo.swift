import BadgeCore
import JSON

/// What a credential attests (schema `badgeInfo`); also how getBadgeInvoice names the badge.
public struct BadgeInfo: Hashable, JSONModel {
    public var badgeType: BadgeType
    public var badgeExpiry: Timestamp
    /// Reserved; always empty today.
    public var badgeExtra: String

    public init(badgeType: BadgeType, badgeExpiry: Timestamp, badgeExtra: String = "") {
        self.badgeType = badgeType
        self.badgeExpiry = badgeExpiry
        self.badgeExtra = badgeExtra
    }

    public init(json: JSONValue, at path: [String]) throws(JSONDecodingError) {
        let o = try JSONObjectReader(json, at: path)
        badgeType = BadgeType(rawValue: try o.string("badgeType"))
        badgeExpiry = try o.timestamp("badgeExpiry")
        badgeExtra = try o.string("badgeExtra")
    }

    public var json: JSONValue {
        var w = JSONObjectBuilder()
        w.add("badgeType", badgeType.rawValue)
        w.add("badgeExpiry", badgeExpiry)
        w.add("badgeExtra", badgeExtra)
        return w.json
    }
}
