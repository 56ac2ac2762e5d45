import AppStore
import BadgeCore
import Ledger
import Schema
import Storage

/// App Store subscriptions as the store-agnostic handlers read them: Get All Subscription
/// Statuses through ``AppStoreServerAPI``, the latest transaction judged by the first-charge rule
/// as the spec words it for the App Store (purchaseBadge "Subscriptions").
public struct AppStoreSubscriptions: SubscriptionStore {
    public let api: AppStoreServerAPI
    /// The plans this deployment sells, read at each judgement (the database's, which an operator
    /// changes while the service runs): a subscription product outside them funds nothing.
    let products: @Sendable () throws -> StoreProducts

    public init(api: AppStoreServerAPI, products: @escaping @Sendable () throws -> StoreProducts) {
        self.api = api
        self.products = products
    }

    /// A store judging charges by a fixed product list.
    public init(api: AppStoreServerAPI, products: StoreProducts = .upstream) {
        self.init(api: api, products: { products })
    }

    public var name: String { "apple" }

    /// `reference` is the subscription's original transaction id.
    public func read(reference: String, now: Timestamp) throws(SubscriptionRefusal) -> SubscriptionReading {
        switch api.subscriptionStatus(originalTransactionId: reference, now: now) {
        case .unavailable(let reason, let retryAfter):
            throw SubscriptionRefusal(.providerUnavailable(retryAfter: retryAfter.map { UInt32(clamping: $0) }), "apple: \(reason)")
        case .refused(let refusal):
            throw SubscriptionRefusal(Self.refusalClass(refusal.answer), "apple: \(refusal.reason)")
        case .read(let read):
            return reading(read, now: now)
        }
    }

    /// The App Store keeps every charge without being told: nothing to do.
    public func confirm(reference: String, charge: StoreCharge) throws(SubscriptionRefusal) {}

    /// A verified status as the protocol reports it, its latest charge judged at `now`.
    func reading(_ read: AppStoreSubscriptionRead, now: Timestamp) -> SubscriptionReading {
        let transaction = read.transaction
        let revoked = transaction.revocationDate != nil || read.status == .revoked
        return SubscriptionReading(state: Self.state(read), latestChargeId: transaction.transactionId, latestChargeRevoked: revoked,
                                   charge: firstCharge(read, revoked: revoked, now: now), isConfirmed: true)
    }

    /// Apple's status as the protocol's `subscription`: a grace period is a billing retry that
    /// still serves; a revoked subscription will not be charged again.
    static func state(_ read: AppStoreSubscriptionRead) -> SubscriptionState {
        switch read.status {
        case .active: read.renewal.autoRenews ? .renewing : .cancelled
        case .billingRetry, .gracePeriod: .billingRetry
        case .expired, .revoked: .ended
        }
    }

    /// The first-charge rule: the latest transaction is grantable only while its period runs,
    /// unrevoked, bought with no offer, for a plan sold here, on a subscription that has not
    /// ended, and while its plan's months from the period start still run.
    func firstCharge(_ read: AppStoreSubscriptionRead, revoked: Bool, now: Timestamp) -> Result<StoreCharge, SubscriptionRefusal> {
        let transaction = read.transaction
        // `decode` guarantees an expiresDate for an auto-renewable transaction, which the status read requires.
        guard let end = transaction.expiresDate else {
            return .failure(SubscriptionRefusal(.internal, "apple: the subscription transaction has no expiresDate"))
        }
        let start = transaction.purchaseDate
        func pending(_ seconds: UInt32, _ why: String) -> Result<StoreCharge, SubscriptionRefusal> {
            .failure(SubscriptionRefusal(.paymentPending(retryAfter: seconds), "apple: \(why)"))
        }
        guard end > start else {
            return .failure(SubscriptionRefusal(.internal, "apple: the charge's period does not end after it starts"))
        }
        if revoked { return pending(SubscriptionRefusal.day, "the latest charge is revoked") }
        if let offer = transaction.offerType { return pending(SubscriptionRefusal.day, "the latest charge was bought with an offer (type \(offer))") }
        let sold: StoreProducts
        do { sold = try products() } catch {
            return .failure(SubscriptionRefusal.database(error, "apple: reading the store products"))
        }
        guard let plan = sold.product(store: "apple", id: transaction.productId), plan.kind == .subscription else {
            return pending(SubscriptionRefusal.day, "product \(transaction.productId) is not a plan this service sells")
        }
        if read.status == .expired { return pending(SubscriptionRefusal.day, "the subscription has ended") }
        if now < start { return pending(SubscriptionRefusal.hour, "the charge's period has not started") }
        if now >= end { return pending(SubscriptionRefusal.day, "the charge's period is over") }
        if addMonths(plan.months, to: start) <= now {
            return pending(SubscriptionRefusal.day, "the \(plan.months) months the plan grants from the period start have run out")
        }
        return .success(StoreCharge(chargeId: transaction.transactionId, productId: transaction.productId, badgeType: plan.badgeType,
                                    months: plan.months, periodStart: start, periodEnd: end))
    }

    static func refusalClass(_ answer: StoreVerdict) -> SubscriptionRefusal.Class {
        .init(answer, retryAfter: nil)
    }
}
