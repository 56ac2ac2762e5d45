import BadgeCore

/// Why a signed App Store document was not accepted: the spec's class and a reason for the log.
/// The reason never holds the JWS or any part of it.
public struct AppStoreRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The spec's class of the verdict: `receipt_invalid`, `test_purchase` or `internal`.
    public let answer: StoreVerdict
    public let reason: String

    public init(_ answer: StoreVerdict, _ reason: String) {
        self.answer = answer
        self.reason = reason
    }

    static func invalid(_ reason: String) -> AppStoreRefusal { AppStoreRefusal(.receiptInvalid, reason) }
    static func `internal`(_ reason: String) -> AppStoreRefusal { AppStoreRefusal(.internal, reason) }
    static func test(_ reason: String) -> AppStoreRefusal { AppStoreRefusal(.testPurchase, reason) }

    public var description: String { "\(answer.rawValue): \(reason)" }
}
