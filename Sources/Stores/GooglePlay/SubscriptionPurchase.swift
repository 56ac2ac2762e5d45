import BadgeCore
import Ledger

/// `subscriptionState` of `purchases.subscriptionsv2.get`.
public enum PlaySubscriptionState: String, Sendable, Hashable, CaseIterable {
    case pending = "SUBSCRIPTION_STATE_PENDING"
    case active = "SUBSCRIPTION_STATE_ACTIVE"
    case paused = "SUBSCRIPTION_STATE_PAUSED"
    case inGracePeriod = "SUBSCRIPTION_STATE_IN_GRACE_PERIOD"
    case onHold = "SUBSCRIPTION_STATE_ON_HOLD"
    case canceled = "SUBSCRIPTION_STATE_CANCELED"
    case expired = "SUBSCRIPTION_STATE_EXPIRED"
    case pendingPurchaseCanceled = "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED"

    /// No charge will come on this token: Play issues a new one when it is bought again.
    public var hasEnded: Bool { self == .expired || self == .pendingPurchaseCanceled }
}

/// Which phase of an offer the current charge is in (`offerPhase`).
public enum PlayOfferPhase: Sendable, Hashable {
    case base
    case freeTrial
    case introductoryPrice
    /// A proration period after a plan change, carrying the phase it prorates.
    case proration(original: String)
    /// No `offerPhase` in the answer.
    case unstated

    /// Whether a charge in this phase is bought with an offer, and so not credited.
    var isOffer: Bool {
        switch self {
        case .base: false
        case .freeTrial, .introductoryPrice: true
        case .proration(let original): original != "BASE"
        case .unstated: true
        }
    }
}

/// The one line item of a subscription as read: the latest charge.
public struct PlaySubscriptionCharge: Sendable, Hashable {
    public let productID: String
    public let basePlanID: String
    public let offerID: String?
    public let expiryTime: Timestamp
    public let offerPhase: PlayOfferPhase
    public let orderID: String?
    public let autoRenewEnabled: Bool?
}

/// A `SubscriptionPurchaseV2` read: the state, whether it is a test, whether it is acknowledged,
/// and its charge when it has one.
public struct PlaySubscription: Sendable, Hashable {
    public let state: PlaySubscriptionState
    public let isTest: Bool
    public let isAcknowledged: Bool
    /// Nil only when the subscription is pending or has ended.
    public let charge: PlaySubscriptionCharge?
    public let linkedPurchaseToken: String?

    /// Reads the answer; anything this service cannot read, or a shape the spec calls
    /// internal (an unknown state, several line items, none while not ended, a charge without its
    /// expiry, product or base plan), is refused as internal.
    public static func read(_ body: [UInt8]) throws(PlayRefusal) -> PlaySubscription {
        let s = try PlayJSONObject(body, what: "purchases.subscriptionsv2.get")
        guard let stateText = try s.string("subscriptionState") else {
            throw .internal("purchases.subscriptionsv2.get has no subscriptionState")
        }
        guard let state = PlaySubscriptionState(rawValue: stateText) else {
            throw .internal("subscriptionState \(stateText) is not known")
        }
        let acknowledgement = try s.string("acknowledgementState") ?? "ACKNOWLEDGEMENT_STATE_PENDING"
        guard ["ACKNOWLEDGEMENT_STATE_PENDING", "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED", "ACKNOWLEDGEMENT_STATE_UNSPECIFIED"]
            .contains(acknowledgement) else { throw .internal("acknowledgementState \(acknowledgement) is not known") }
        let items = try s.array("lineItems")
        var charge: PlaySubscriptionCharge?
        if state != .pending {
            guard items.count <= 1 else { throw .internal("subscription has \(items.count) line items") }
            if let item = items.first {
                charge = try readCharge(item)
            } else if !state.hasEnded {
                throw .internal("subscription in \(stateText) has no line item")
            }
        }
        return PlaySubscription(state: state, isTest: s.has("testPurchase"),
                                isAcknowledged: acknowledgement == "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
                                charge: charge, linkedPurchaseToken: try s.string("linkedPurchaseToken"))
    }

    private static func readCharge(_ item: PlayJSONObject) throws(PlayRefusal) -> PlaySubscriptionCharge {
        guard let product = try item.string("productId"), !product.isEmpty else { throw .internal("charge has no productId") }
        guard let expiry = try item.timestamp("expiryTime") else { throw .internal("charge has no expiryTime") }
        guard let basePlan = try item.nested("offerDetails")?.string("basePlanId"), !basePlan.isEmpty else {
            throw .internal("charge has no base plan")
        }
        let offer = try item.nested("offerDetails")?.string("offerId")
        var phase = PlayOfferPhase.unstated
        if let p = try item.nested("offerPhase") {
            if p.has("basePrice") { phase = .base }
            else if p.has("freeTrial") { phase = .freeTrial }
            else if p.has("introductoryPrice") { phase = .introductoryPrice }
            else if let proration = try p.nested("prorationPeriod") {
                phase = .proration(original: try proration.string("originalOfferPhaseType") ?? "")
            }
        } else if offer == nil {
            // Answers without offerPhase predate it; a charge of no offer is at the base price.
            phase = .base
        }
        let autoRenew: Bool?
        if case .bool(let b)? = try item.nested("autoRenewingPlan")?.object["autoRenewEnabled"] { autoRenew = b } else { autoRenew = nil }
        return PlaySubscriptionCharge(productID: product, basePlanID: basePlan, offerID: offer, expiryTime: expiry,
                                      offerPhase: phase, orderID: try item.string("latestSuccessfulOrderId"),
                                      autoRenewEnabled: autoRenew)
    }
}

/// A subscription charge this service may credit to a first purchase.
public struct PlayCreditableCharge: Sendable, Hashable {
    public let grant: PlayGrant
    /// The billing period's start as Play's month clipping derives it from the expiry.
    public let periodStart: Timestamp
    public let expiryTime: Timestamp
    public let charge: PlaySubscriptionCharge
    /// Whether the subscription still renews (`cancelled` in the protocol otherwise).
    public let isRenewing: Bool
}

extension PlaySubscription {
    /// The spec's rule for a first purchase of `claimedProductID` at `now`: the charge to credit,
    /// or the refusal in its class. A license tester's is `test_purchase` unless `creditsTest`.
    public func firstCharge(claimedProductID: String, products: PlayProductMap, now: Timestamp,
                            creditsTest: Bool = false) throws(PlayRefusal) -> PlayCreditableCharge {
        if state == .pending { throw .pending("SUBSCRIPTION_STATE_PENDING", retry: .hour) }
        if isTest && !creditsTest { throw .test("subscription with testPurchase (a license tester's)") }
        if state.hasEnded { throw .invalid("subscription \(state.rawValue): ended") }
        guard let charge else { throw .internal("subscription in \(state.rawValue) has no charge") }
        guard charge.productID == claimedProductID else { throw .internal("subscriptionsv2.get names another product") }
        let grant: PlayGrant
        switch products.plan(product: charge.productID, basePlan: charge.basePlanID) {
        case .sold(let g): grant = g
        case .soldUnderAnotherProduct(let other):
            throw .internal("base plan \(charge.basePlanID) is sold under \(other), not \(charge.productID)")
        case .notSold: throw .pending("base plan \(charge.basePlanID) is not sold here", retry: .day)
        }
        if charge.offerPhase.isOffer { throw .pending("charge in an offer phase (\(charge.offerPhase))", retry: .day) }
        switch state {
        case .active, .canceled: break
        case .inGracePeriod, .onHold: throw .pending("\(state.rawValue): Play is retrying the charge", retry: .day)
        case .paused: throw .pending("\(state.rawValue): no charge runs", retry: .day)
        case .pending, .expired, .pendingPurchaseCanceled: throw .internal("unreachable state \(state.rawValue)")
        }
        let start = addMonths(-grant.months, to: charge.expiryTime)
        guard start < charge.expiryTime else { throw .internal("charge period does not end after it starts") }
        if now < start { throw .pending("charge period has not started", retry: .hour) }
        if charge.expiryTime <= now { throw .pending("charge period is over", retry: .day) }
        // Play clips at month ends: the months granted from the derived start may end before the expiry.
        if addMonths(grant.months, to: start) <= now { throw .pending("the charge's months have run out", retry: .day) }
        return PlayCreditableCharge(grant: grant, periodStart: start, expiryTime: charge.expiryTime, charge: charge,
                                    isRenewing: state == .active && charge.autoRenewEnabled != false)
    }
}
