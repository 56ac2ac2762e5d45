import BadgeCore

/// How long a `payment_pending` asks the client to wait before presenting the purchase again.
public enum PlayRetryHint: Sendable, Hashable {
    /// Play reports the payment pending, or the period has not started: ask again within the hour.
    case hour
    /// Something only a later charge on the same token could change.
    case day
}

/// A refusal of a Play purchase: its class and a reason for the log (never a token).
public struct PlayRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The spec's class of Play's answer.
    public let verdict: StoreVerdict
    public let reason: String
    /// Set for `payment_pending`.
    public let retry: PlayRetryHint?

    public init(_ verdict: StoreVerdict, _ reason: String, retry: PlayRetryHint? = nil) {
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

    /// Seconds a `payment_pending` asks the client to wait (nil for the other classes).
    public var retrySeconds: UInt32? {
        retry.map { $0 == .day ? StoreVerdict.day : StoreVerdict.hour }
    }

    public var description: String { "\(verdict.rawValue): \(reason)" }
}
