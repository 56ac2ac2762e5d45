/// A badge type tag as it travels and is signed: `supporter`, `legend`, `investor`, or any
/// other string a future version may send (kept verbatim; it verifies, with no perks).
public struct BadgeType: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    public static let supporter: BadgeType = "supporter"
    public static let legend: BadgeType = "legend"
    public static let investor: BadgeType = "investor"

    /// The types this service knows about.
    public static let known: [BadgeType] = [.supporter, .legend, .investor]

    public var description: String { rawValue }
}
