/// The classes of the spec's Google Play list ("Which class an answer belongs to"). The
/// purchase path turns each into its protocol error; the reason goes to the log only.
public enum PlayVerdictClass: String, Sendable, Hashable {
    /// The store answered about this purchase and cannot change its mind.
    case receiptInvalid = "receipt_invalid"
    /// Play vouched for a purchase that cost nothing (a license tester's).
    case testPurchase = "test_purchase"
    /// A real purchase Play has not settled, or a charge a later one could still change.
    case paymentPending = "payment_pending"
    /// Play was not asked or did not answer.
    case providerUnavailable = "provider_unavailable"
    /// This service's own failure or misconfiguration, never Play's verdict.
    case `internal` = "internal"
}

/// How long a `payment_pending` asks the client to wait before presenting the purchase again.
public enum PlayRetryHint: Sendable, Hashable {
    /// Play reports the payment pending, or the period has not started: ask again within the hour.
    case hour
    /// Something only a later charge on the same token could change.
    case day
}

/// A refusal of a Play purchase: its class and a reason for the log (never a token).
public struct PlayRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    public let verdict: PlayVerdictClass
    public let reason: String
    /// Set for `payment_pending`.
    public let retry: PlayRetryHint?

    public init(_ verdict: PlayVerdictClass, _ reason: String, retry: PlayRetryHint? = nil) {
        self.verdict = verdict
        self.reason = reason
        self.retry = verdict == .paymentPending ? (retry ?? .hour) : nil
    }

    public static func invalid(_ reason: String) -> PlayRefusal { PlayRefusal(.receiptInvalid, reason) }
    public static func test(_ reason: String) -> PlayRefusal { PlayRefusal(.testPurchase, reason) }
    public static func pending(_ reason: String, retry: PlayRetryHint = .hour) -> PlayRefusal {
        PlayRefusal(.paymentPending, reason, retry: retry)
    }
    public static func unavailable(_ reason: String) -> PlayRefusal { PlayRefusal(.providerUnavailable, reason) }
    public static func `internal`(_ reason: String) -> PlayRefusal { PlayRefusal(.internal, reason) }

    public var description: String { "\(verdict.rawValue): \(reason)" }
}
