import BadgeCore
import Storage

/// A store's verified word that money it took is gone: an App Store `REFUND` or `REVOKE`, a Play
/// voided purchase or `SUBSCRIPTION_REVOKED`. Made only once the notification's signature (Apple)
/// or push authentication (Google) and its app id checked; what each listener does with it is its
/// own rule. Never holds a receipt or token in clear beyond what the listeners need to find a record.
public struct StoreRefundNotice: Sendable, Equatable {
    public enum Store: String, Sendable {
        case apple, google
    }

    /// What the store says happened.
    public enum Kind: String, Sendable {
        /// Apple `REFUND`: the transaction was refunded.
        case refunded
        /// Apple `REVOKE`: Family Sharing access was taken back.
        case revoked
        /// Play `voidedPurchaseNotification`: the order was refunded, charged back or cancelled.
        case voided
        /// Play `SUBSCRIPTION_REVOKED`: the subscription was ended and refunded before it expired.
        case subscriptionRevoked
    }

    /// Whether the store sold it as a one-time product or as a subscription.
    public enum ProductKind: String, Sendable {
        case oneTime, subscription
    }

    public var store: Store
    public var kind: Kind
    public var productKind: ProductKind
    /// The store product, when the notification names it (Apple always; Play's voided purchases do not).
    public var productId: String?
    /// What a one-time purchase's `badge_payments.provider_ref` holds under `store`: Apple's
    /// `transactionId`; for Play, base64url(SHA-256(purchase token)).
    public var paymentReference: String
    /// What the subscription record is keyed by (`SubscriptionRecord.reference`): Apple's
    /// `originalTransactionId`, Play's purchase token; nil for a one-time product.
    public var subscriptionReference: String?
    /// The store's id of the charge taken back (the ledger's `charge {chargeId}`): Apple's
    /// `transactionId`, Play's `orderId`; nil when the whole subscription is revoked.
    public var chargeId: String?
    /// Apple's `transactionId` and `originalTransactionId`, as the notification gave them.
    public var transactionId: String?
    public var originalTransactionId: String?
    /// Play's purchase token and `orderId`, as the notification gave them (the token is a
    /// bearer secret of the buyer's: never log it).
    public var purchaseToken: String?
    public var orderId: String?
    /// A purchase of Apple's Sandbox: the badge path credits those only under
    /// `credit_test_purchases`, the coin wallet always (App Review buys in Sandbox against production).
    public var sandbox: Bool

    public init(store: Store, kind: Kind, productKind: ProductKind, productId: String?, paymentReference: String,
                subscriptionReference: String?, chargeId: String?, transactionId: String? = nil,
                originalTransactionId: String? = nil, purchaseToken: String? = nil, orderId: String? = nil,
                sandbox: Bool = false) {
        self.store = store
        self.kind = kind
        self.productKind = productKind
        self.productId = productId
        self.paymentReference = paymentReference
        self.subscriptionReference = subscriptionReference
        self.chargeId = chargeId
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.purchaseToken = purchaseToken
        self.orderId = orderId
        self.sandbox = sandbox
    }
}

/// Something that takes back what a refunded or revoked store purchase bought: the badge ledger
/// (``BadgeLedgerRefunds``) first, then whatever the deployment adds (``BadgeService`` `init`).
/// Each runs inside the one write transaction that also records the delivery's id, so a
/// redelivery is a duplicate for all of them, and a thrown error rolls all of them back (the
/// store delivers again).
public protocol StoreNotificationListener: Sendable {
    /// Applies `notice` at `now`; returns what it did, for the log, or nil when it holds nothing
    /// the notice concerns.
    func apply(_ notice: StoreRefundNotice, in w: any StoreWriter, at now: Timestamp) throws -> String?
}
