import BadgeCore
import Schema
import Storage

// The seam between the subscription rules of the spec (purchaseBadge "Subscriptions",
// issueBadge "Subscriptions", transferBadge, upgradeBadgeSubscription), which are the same for
// every store, and the two stores that answer them: the App Store Server API and Play's
// purchases.subscriptionsv2. Each store adapter turns its own answer into a `SubscriptionReading`;
// the handlers decide what the ledger does with it.

/// A store subscription charge that the first-charge rule allows crediting: for a plan this
/// service sells, not in an offer, not revoked, while its period and its plan's months still run.
public struct StoreCharge: Sendable, Equatable {
    /// The store's id of this charge, the ledger's `charge {chargeId}`: Apple's `transactionId`,
    /// Play's `latestSuccessfulOrderId`.
    public var chargeId: String
    /// The store product charged.
    public var productId: String
    /// The badge type and months the plan grants per charge.
    public var badgeType: BadgeType
    public var months: Int
    /// The store's billing period: the credit is dated to its start (or the ledger's last row when later).
    /// Whole seconds, as the ledger and the charge records keep them: Apple's dates carry
    /// milliseconds, Play's times often do, and a row answered with them would differ from the
    /// same row read back (a repeat's answer, the client's check of the rows that follow).
    public var periodStart: Timestamp
    public var periodEnd: Timestamp

    public init(chargeId: String, productId: String, badgeType: BadgeType, months: Int, periodStart: Timestamp,
                periodEnd: Timestamp) {
        self.chargeId = chargeId
        self.productId = productId
        self.badgeType = badgeType
        self.months = months
        self.periodStart = Timestamp(seconds: periodStart.seconds)
        self.periodEnd = Timestamp(seconds: periodEnd.seconds)
    }
}

/// A store's answer, or the failure to get one, in the spec's classes ("Which class an answer
/// belongs to"). `reason` is for the log only and never holds a receipt or token.
public struct SubscriptionRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Class: Sendable, Equatable {
        case receiptInvalid
        case testPurchase
        /// A real purchase not settled, or a charge a later one could still change: retry after this many seconds
        /// (an hour or a day, per the spec's list).
        case paymentPending(retryAfter: UInt32)
        /// The store was not asked or did not answer; `retryAfter` when it said when to come back.
        case providerUnavailable(retryAfter: UInt32?)
        /// This service's own failure or configuration.
        case `internal`

        /// A store's verdict, with its wait: the classes are the stores' (``StoreVerdict``).
        public init(_ verdict: StoreVerdict, retryAfter: UInt32?) {
            switch verdict {
            case .receiptInvalid: self = .receiptInvalid
            case .testPurchase: self = .testPurchase
            case .paymentPending: self = .paymentPending(retryAfter: retryAfter ?? StoreVerdict.hour)
            case .providerUnavailable: self = .providerUnavailable(retryAfter: retryAfter)
            case .internal: self = .internal
            }
        }

        /// The class of the verdict, without its wait.
        public var verdict: StoreVerdict {
            switch self {
            case .receiptInvalid: .receiptInvalid
            case .testPurchase: .testPurchase
            case .paymentPending: .paymentPending
            case .providerUnavailable: .providerUnavailable
            case .internal: .internal
            }
        }
    }

    public var kind: Class
    public var reason: String


    public init(_ kind: Class, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    public static let hour: UInt32 = StoreVerdict.hour
    public static let day: UInt32 = StoreVerdict.day

    /// A read of this service's own database that failed while the store's answer was judged: an
    /// outage or a lock held too long is transient (the store's class for "not answered"), as it
    /// is everywhere else; any other failure is internal.
    public static func database(_ error: any Error, _ what: String) -> SubscriptionRefusal {
        switch error {
        case StorageError.busy, StorageError.unavailable: SubscriptionRefusal(.providerUnavailable(retryAfter: 1), "\(what): \(error)")
        default: SubscriptionRefusal(.internal, "\(what): \(error)")
        }
    }

    public var description: String { "\(kind): \(reason)" }
}

/// One read of a subscription from its store, as of the time it was asked.
public struct SubscriptionReading: Sendable, Equatable {
    /// The protocol's `subscription` as the store reported it: renewing, cancelled, billingRetry or ended.
    public var state: SubscriptionState
    /// The store's id of its latest charge, when it reports one: a renewal check compares it with
    /// the charge already granted, so a revoked or replaced charge is seen.
    public var latestChargeId: String?
    /// Whether that latest charge is revoked (refunded or taken back by the store).
    public var latestChargeRevoked: Bool
    /// The latest charge judged by the first-charge rule at the time of the read: grantable, or
    /// the refusal a first purchase would be answered with.
    public var charge: Result<StoreCharge, SubscriptionRefusal>
    /// Whether the store already keeps the purchase without `SubscriptionStore.confirm` (Play reports
    /// it acknowledged; always true for the App Store).
    public var isConfirmed: Bool

    public init(state: SubscriptionState, latestChargeId: String?, latestChargeRevoked: Bool,
                charge: Result<StoreCharge, SubscriptionRefusal>, isConfirmed: Bool = true) {
        self.state = state
        self.latestChargeId = latestChargeId
        self.latestChargeRevoked = latestChargeRevoked
        self.charge = charge
        self.isConfirmed = isConfirmed
    }
}

/// A store that can read a subscription: implemented for the App Store (Get All Subscription
/// Statuses) and Google Play (subscriptionsv2.get); tests script one.
public protocol SubscriptionStore: Sendable {
    /// `apple` or `google`, as the protocol names the funding.
    var name: String { get }
    /// Reads the subscription `reference` names (an original transaction id, a purchase token) at `now`.
    /// A read that fails, or whose answer this service must refuse as a whole, throws in its class.
    func read(reference: String, now: Timestamp) throws(SubscriptionRefusal) -> SubscriptionReading
    /// Makes the store keep `charge` before it is first credited, called only when the reading is not
    /// `isConfirmed` (Play's acknowledgement; nothing for the App Store). A failure credits nothing
    /// and is thrown in its class, its reason saying "acknowledging".
    func confirm(reference: String, charge: StoreCharge) throws(SubscriptionRefusal)
}
