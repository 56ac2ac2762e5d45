/// The classes of a store's answer the spec lists ("Which class an answer belongs to"), declared
/// once: the App Store's and Google Play's verifiers judge in them, and the badge purchase paths,
/// the subscription seam and the coin wallet each turn a class into their own error in one place.
/// The raw value is the protocol's error code of the class.
public enum StoreVerdict: String, Sendable, Hashable, CaseIterable {
    /// The store answered about this purchase and cannot change its mind, or the evidence can
    /// never verify.
    case receiptInvalid = "receipt_invalid"
    /// The store vouched for a purchase that cost nothing (Apple's Sandbox, a Play license tester's).
    case testPurchase = "test_purchase"
    /// A real purchase the store has not settled, or a charge a later one could still change.
    case paymentPending = "payment_pending"
    /// The store was not asked or did not answer.
    case providerUnavailable = "provider_unavailable"
    /// This service's own failure or configuration, never the store's verdict.
    case `internal` = "internal"

    /// An hour, the wait of a `payment_pending` a store says is pending.
    public static let hour: UInt32 = 3600
    /// A day, the wait of one only a later charge could change.
    public static let day: UInt32 = 86_400
}
