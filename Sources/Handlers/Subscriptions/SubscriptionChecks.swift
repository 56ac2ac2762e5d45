import BadgeCore
import Ledger
import Schema
import Storage

// What every subscription path shares: the hourly windows on asking a store, the store's
// refusals in the protocol's classes, and the record's view of what the store said last.

/// A store is asked about a subscription at most once an hour on each path (the renewal hour
/// shared with upgradeBadgeSubscription), whether or not it answers.
enum SubscriptionWindow {
    static let seconds: Int64 = 3600

    /// Seconds until the path's hour is over, or nil when the store may be asked at `now`.
    /// A clock that stepped back never waits more than the hour: a check recorded after `now`
    /// cannot be measured from, so the store may be asked.
    static func secondsLeft(checkedAt: Timestamp?, now: Timestamp) -> UInt32? {
        guard let checkedAt, checkedAt <= now else { return nil }
        let left = checkedAt.seconds + seconds - now.seconds
        guard left > 0 else { return nil }
        return UInt32(min(left, seconds))
    }
}

extension BadgeServiceError {
    /// The protocol's class of a store's refusal. A transient answer never asks the client back
    /// before `floor` seconds (the path's hour window, which the store would not be asked in).
    init(_ refusal: SubscriptionRefusal, store: String, floor: UInt32) {
        switch refusal.kind {
        case .receiptInvalid: self = .receiptInvalid
        case .testPurchase: self = .testPurchase
        case .paymentPending(let after): self = .paymentPending(retryAfter: max(after, floor))
        case .providerUnavailable(let after):
            self = .providerUnavailable(retryAfter: max(after ?? 0, floor), detail: "\(store) subscription: \(refusal.reason)")
        case .internal: self = .internal(detail: "\(store) subscription: \(refusal.reason)")
        }
    }
}

extension SubscriptionRecord {
    /// The protocol's `subscription` as last read; a record read by no path yet is taken as renewing.
    var lastState: SubscriptionState { state.flatMap(SubscriptionState.init(rawValue:)) ?? .renewing }

    /// Notes a read of the store at `now` (the state, the latest charge and whether it is revoked).
    mutating func note(_ reading: SubscriptionReading, at now: Timestamp) {
        state = reading.state.rawValue
        readAt = now
        latestChargeId = reading.latestChargeId
        latestChargeRevoked = reading.latestChargeRevoked
    }

    /// What the store said at its last read, as a reading judged again at `now` (a charge whose
    /// period has run out since is no longer grantable); nil when it was never read, or when the
    /// last renewal check got no answer.
    func lastReading(charges: [SubscriptionChargeRecord], now: Timestamp) -> SubscriptionReading? {
        guard let readAt else { return nil }
        // The store was asked on the renewal path since and did not answer: nothing newer is known.
        if let asked = checkedAt[.renewal], asked > readAt { return nil }
        let charge: Result<StoreCharge, SubscriptionRefusal>
        if state != SubscriptionState.ended.rawValue, let id = latestChargeId, !latestChargeRevoked, let c = charges.first(where: { $0.chargeId == id }),
           now < c.periodEnd {
            charge = .success(StoreCharge(chargeId: c.chargeId, productId: c.productId, badgeType: c.badgeType, months: c.months,
                                          periodStart: c.periodStart, periodEnd: c.periodEnd))
        } else {
            charge = .failure(SubscriptionRefusal(.paymentPending(retryAfter: SubscriptionRefusal.day),
                                                  "the last read reported no charge to grant"))
        }
        return SubscriptionReading(state: lastState, latestChargeId: latestChargeId, latestChargeRevoked: latestChargeRevoked,
                                   charge: charge)
    }
}

extension SubscriptionChargeRecord {
    init(_ charge: StoreCharge, subscriptionId: Int64, seenAt: Timestamp, grantedAt: Timestamp? = nil) {
        self.init(subscriptionId: subscriptionId, chargeId: charge.chargeId, productId: charge.productId,
                  badgeType: charge.badgeType, months: charge.months, periodStart: charge.periodStart,
                  periodEnd: charge.periodEnd, seenAt: seenAt, grantedAt: grantedAt)
    }
}

extension BadgeService {
    /// The deployed reader of `store`'s subscriptions, if any.
    func subscriptionStore(named store: String) -> (any SubscriptionStore)? {
        subscriptionStores.first { $0.name == store }
    }

    /// Takes the hour of `path` for the subscription, recording the subscription if this is the
    /// first time its store is asked about it; returns the seconds left when the hour is not over.
    /// `mayAsk` runs once the hour allows asking, before it is taken: what it throws is the answer
    /// and nothing is written. It runs outside the hour's transaction, since a budget shared
    /// through the database takes a connection of its own (inside, every pooled connection could
    /// wait on another); a request racing to the same hour may so spend a check it does not make.
    func claimSubscriptionCheck(store: String, reference: String, path: SubscriptionCheckPath,
                                now: Timestamp, mayAsk: (() throws -> Void)? = nil) throws -> UInt32? {
        if let mayAsk {
            let checkedAt = try self.store.read { try $0.subscription(store: store, reference: reference)?.checkedAt[path] }
            if let left = SubscriptionWindow.secondsLeft(checkedAt: checkedAt, now: now) { return left }
            try mayAsk()
        }
        return try self.store.write { w in
            var record = try w.subscription(store: store, reference: reference)
                ?? w.insertSubscription(store: store, reference: reference)
            if let left = SubscriptionWindow.secondsLeft(checkedAt: record.checkedAt[path], now: now) { return left }
            record.checkedAt[path] = now
            try w.updateSubscription(record)
            return nil
        }
    }

    /// Asks the store, after the path's hour was claimed: the reading, or the refusal in its class.
    func readSubscription(_ adapter: any SubscriptionStore, reference: String,
                          now: Timestamp) -> Result<SubscriptionReading, SubscriptionRefusal> {
        let reading: SubscriptionReading
        do {
            reading = try adapter.read(reference: reference, now: now)
        } catch {
            configuration.reportProviderFailure("\(adapter.name) subscription: \(error.reason)")
            return .failure(error)
        }
        do {
            return .success(try withRecordedRefunds(reading, store: adapter.name))
        } catch {
            return .failure(SubscriptionRefusal.database(error, "reading the refunds recorded"))
        }
    }

    /// `reading` with its charge not grantable when a verified notice took that charge back
    /// (`badge_refunds`): Play goes on reporting a voided order as the latest successful one while
    /// the subscription runs, so its reading alone would grant it.
    private func withRecordedRefunds(_ reading: SubscriptionReading, store name: String) throws -> SubscriptionReading {
        guard case .success(let charge) = reading.charge,
              try store.read({ try $0.isRefunded(ProviderRefund(provider: name, kind: .charge, reference: charge.chargeId)) })
        else { return reading }
        var taken = reading
        taken.charge = .failure(SubscriptionRefusal(.paymentPending(retryAfter: SubscriptionRefusal.day),
                                                    "the store took the charge back"))
        if taken.latestChargeId == charge.chargeId { taken.latestChargeRevoked = true }
        return taken
    }

    /// Makes the store keep `charge` before it is first credited, when the reading says it does not
    /// yet (purchaseBadge, transferBadge): a failure credits nothing and is answered in its class.
    func confirmIfNeeded(_ charge: StoreCharge, of reading: SubscriptionReading, adapter: any SubscriptionStore,
                         reference: String, floor: UInt32) throws {
        guard !reading.isConfirmed else { return }
        do { try adapter.confirm(reference: reference, charge: charge) } catch {
            configuration.reportProviderFailure("\(adapter.name) subscription: \(error.reason)")
            throw BadgeServiceError(error, store: adapter.name, floor: floor)
        }
    }

    /// The first charge of a subscription credited to a new purchase, dated to its billing
    /// period start, then the month due issued (purchaseBadge, transferBadge).
    func planFirstCharge(_ charge: StoreCharge, now: Timestamp) throws -> (plan: LedgerPlan, period: IssuedPeriod) {
        let plan: LedgerPlan
        do {
            plan = try planFirstFunding(months: charge.months, credit: .charge(chargeId: charge.chargeId),
                                        badgeType: charge.badgeType, creditAt: charge.periodStart, now: now,
                                        newId: newEntryId)
        } catch LedgerError.periodStartAfterNow {
            throw BadgeServiceError.paymentPending(retryAfter: SubscriptionRefusal.hour)
        } catch {
            throw BadgeServiceError.internal(detail: "planning a subscription charge: \(error)")
        }
        // Every month of the charge ran out before now: a later charge could still fund the purchase.
        guard let period = plan.issued else { throw BadgeServiceError.paymentPending(retryAfter: SubscriptionRefusal.day) }
        return (plan, period)
    }
}
