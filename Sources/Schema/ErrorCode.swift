/// An error response's `code`. A struct over the wire string rather than an enum, so codes
/// this build does not know (a newer peer's) survive decoding, as clients keep them.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    public static let badRequest: ErrorCode = "bad_request"
    public static let unsupportedVersion: ErrorCode = "unsupported_version"
    public static let unknownPurchaseKey: ErrorCode = "unknown_purchase_key"
    public static let unknownOfferId: ErrorCode = "unknown_offer_id"
    /// Calls for a catalog refresh.
    public static let offerDisabled: ErrorCode = "offer_disabled"
    public static let offerMismatch: ErrorCode = "offer_mismatch"
    public static let productUnavailable: ErrorCode = "product_unavailable"
    public static let paymentNotEntitled: ErrorCode = "payment_not_entitled"
    /// Transient: a real payment the provider has not settled.
    public static let paymentPending: ErrorCode = "payment_pending"
    /// Transient: the store was not asked or did not answer.
    public static let providerUnavailable: ErrorCode = "provider_unavailable"
    /// No verifier for that store is deployed: the receipt is neither credited nor refused.
    public static let providerNotConfigured: ErrorCode = "provider_not_configured"
    /// Transient.
    public static let rateLimited: ErrorCode = "rate_limited"
    /// Unknown, malformed and revoked codes alike.
    public static let codeInvalid: ErrorCode = "code_invalid"
    public static let codeUsed: ErrorCode = "code_used"
    public static let codeExpired: ErrorCode = "code_expired"
    /// Forged, malformed and refunded receipts alike; terminal.
    public static let receiptInvalid: ErrorCode = "receipt_invalid"
    public static let receiptUsed: ErrorCode = "receipt_used"
    public static let testPurchase: ErrorCode = "test_purchase"
    /// Never carries retryAfter.
    public static let transferLimited: ErrorCode = "transfer_limited"
    public static let `internal`: ErrorCode = "internal"

    /// Every code of the protocol, in the upstream declaration order, then the newer ones.
    public static let all: [ErrorCode] = [
        .badRequest, .unsupportedVersion, .unknownPurchaseKey, .unknownOfferId, .offerDisabled, .offerMismatch,
        .productUnavailable, .paymentNotEntitled, .paymentPending, .providerUnavailable, .rateLimited, .codeInvalid,
        .codeUsed, .codeExpired, .receiptInvalid, .receiptUsed, .internal, .providerNotConfigured, .testPurchase,
        .transferLimited,
    ]

    /// Whether this build knows the code.
    public var isKnown: Bool { Self.all.contains(self) }

    /// Seconds sent as `retryAfter` unless a handler overrides them: payment_pending and
    /// provider_unavailable 300, rate_limited 60; nil for every other code, which is terminal
    /// for the command and never carries retryAfter.
    public var defaultRetryAfter: UInt32? {
        switch self {
        case .paymentPending, .providerUnavailable: 300
        case .rateLimited: 60
        default: nil
        }
    }

    /// The transient codes, the only ones sent with `retryAfter`.
    public var isTransient: Bool { defaultRetryAfter != nil }

    public var description: String { rawValue }
}
