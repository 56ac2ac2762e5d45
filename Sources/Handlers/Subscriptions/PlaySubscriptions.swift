import BadgeCore
import GooglePlay
import Schema

/// Google Play's side of the subscription seam: a subscription is named by its purchase token
/// (Play keeps it across renewals), read with purchases.subscriptionsv2.get and confirmed with
/// purchases.subscriptions.acknowledge.
///
/// A 410 — a subscription expired too long ago for Play to answer about — is thrown as
/// `receiptInvalid`: on a first purchase that is the spec's answer, and a renewal check reads a
/// `receiptInvalid` refusal from this store as the subscription having ended (Play issues a new
/// token when it is bought again, so no later answer about this one can differ).
public struct PlaySubscriptions: SubscriptionStore {
    public let client: GooglePlayClient
    /// The products and base plans this deployment sells, as of each read.
    let products: @Sendable () throws -> PlayProductMap
    public let creditsTestPurchases: Bool
    /// The product the request claimed, on the purchase path: a subscription Play reports for
    /// another product is then refused as internal. Nil on a renewal check.
    public let claimedProductID: String?
    /// Called before each acknowledgement (the purchase path counts it as a Play check).
    let beforeConfirm: @Sendable () -> Void

    /// A reader pricing with `products`, fixed for its life (one request's).
    public init(client: GooglePlayClient, products: PlayProductMap, creditsTestPurchases: Bool = false,
                claimedProductID: String? = nil, beforeConfirm: @escaping @Sendable () -> Void = {}) {
        self.init(client: client, productsNow: { products }, creditsTestPurchases: creditsTestPurchases,
                  claimedProductID: claimedProductID, beforeConfirm: beforeConfirm)
    }

    /// A reader pricing with what `productsNow` reads at each read (the deployment's, changed by `catalog`).
    public init(client: GooglePlayClient, productsNow: @escaping @Sendable () throws -> PlayProductMap,
                creditsTestPurchases: Bool = false, claimedProductID: String? = nil,
                beforeConfirm: @escaping @Sendable () -> Void = {}) {
        self.client = client
        self.products = productsNow
        self.creditsTestPurchases = creditsTestPurchases
        self.claimedProductID = claimedProductID
        self.beforeConfirm = beforeConfirm
    }

    public var name: String { "google" }

    public func read(reference: String, now: Timestamp) throws(SubscriptionRefusal) -> SubscriptionReading {
        let read: GooglePlayClient.SubscriptionRead
        do { read = try client.readSubscription(token: reference) } catch { throw Self.refusal(error) }
        guard case .found(let subscription) = read else {
            throw SubscriptionRefusal(.receiptInvalid, "purchases.subscriptionsv2.get 410: expired too long ago to read")
        }
        let sold: PlayProductMap
        do { sold = try products() } catch { throw SubscriptionRefusal.database(error, "reading the store products") }
        return Self.reading(subscription, claimedProductID: claimedProductID, products: sold,
                            creditsTest: creditsTestPurchases, now: now)
    }

    public func confirm(reference: String, charge: StoreCharge) throws(SubscriptionRefusal) {
        beforeConfirm()
        do { try client.acknowledgeSubscription(productID: charge.productId, token: reference) } catch {
            throw Self.refusal(error)
        }
    }

    /// A subscriptionsv2 answer as the seam's reading: the protocol's state, the latest order id,
    /// the first-charge rule's verdict on the latest charge, and Play's acknowledgement.
    static func reading(_ s: PlaySubscription, claimedProductID: String?, products: PlayProductMap, creditsTest: Bool,
                        now: Timestamp) -> SubscriptionReading {
        let charge: Result<StoreCharge, SubscriptionRefusal>
        do {
            let creditable = try s.firstCharge(claimedProductID: claimedProductID ?? s.charge?.productID ?? "",
                                               products: products, now: now, creditsTest: creditsTest)
            if let order = creditable.charge.orderID, !order.isEmpty {
                charge = .success(StoreCharge(chargeId: order, productId: creditable.charge.productID,
                                              badgeType: creditable.grant.badgeType, months: creditable.grant.months,
                                              periodStart: creditable.periodStart, periodEnd: creditable.expiryTime))
            } else {
                // A line item not owned yet (a deferred replacement) has no successful order: no charge yet.
                charge = .failure(SubscriptionRefusal(.paymentPending(retryAfter: SubscriptionRefusal.day),
                                                      "the charge has no latestSuccessfulOrderId"))
            }
        } catch {
            charge = .failure(refusal(error))
        }
        return SubscriptionReading(state: state(of: s), latestChargeId: s.charge?.orderID,
                                   // Play revokes by ending the subscription (EXPIRED), which `state` reports.
                                   latestChargeRevoked: false, charge: charge, isConfirmed: s.isAcknowledged)
    }

    /// The protocol's `subscription` for Play's state: grace period and on hold are Play retrying
    /// the charge; a paused subscription renews nothing until it resumes, as a cancelled one.
    static func state(of s: PlaySubscription) -> SubscriptionState {
        switch s.state {
        case .active: s.charge?.autoRenewEnabled == false ? .cancelled : .renewing
        case .pending: .renewing
        case .canceled, .paused: .cancelled
        case .inGracePeriod, .onHold: .billingRetry
        case .expired, .pendingPurchaseCanceled: .ended
        }
    }

    /// A Play refusal in the seam's classes.
    static func refusal(_ r: PlayRefusal) -> SubscriptionRefusal {
        SubscriptionRefusal(.init(r.verdict, retryAfter: r.retrySeconds), r.reason)
    }
}
