import AppStore
import BadgeCore
import Crypto
import Ledger
import Schema
import Storage

extension BadgeService {
    /// `upgradeBadgeSubscription` (App Store only): the device saw a transaction of the purchase's own
    /// subscription for another tier. Refused before the store is asked when it does not verify
    /// (receipt_invalid), is of no subscription product, of another subscription, of a purchase no App
    /// Store subscription funds, or from Play (bad_request). A tier the ledger already holds is answered
    /// from the record. Otherwise the store is asked within the renewal hour and its latest charge
    /// granted as a renewal check grants it — a charge of another tier at once, its own run — and the
    /// answer is that tier's credential once granted; until then payment_pending with a retryAfter to the
    /// next allowed check, never the old tier's credential.
    func upgradeBadgeSubscription(key: Ed25519PublicKey, payment: Payment, balance: Balance, now: Timestamp) throws -> RPCResponse {
        let purchase = try knownPurchase(key)
        guard case .apple(let jws) = payment else {
            throw BadgeServiceError.badRequest("upgradeBadgeSubscription takes an App Store transaction")
        }
        let transaction = try verifiedAppStoreTransactionUnpriced(jws)
        guard transaction.kind == .autoRenewable else {
            throw BadgeServiceError.badRequest("the transaction is of no subscription product")
        }
        let (funding, record) = try store.read { r -> (SubscriptionFunding?, SubscriptionRecord?) in
            let funding = try r.subscriptionFunding(purchaseId: purchase.id)
            return (funding, try funding.flatMap { try r.subscription(id: $0.subscriptionId) })
        }
        guard let funding, funding.movedAwayAt == nil, let record, record.store == "apple" else {
            throw BadgeServiceError.badRequest("no App Store subscription funds this purchase")
        }
        guard record.reference == transaction.originalTransactionId else {
            throw BadgeServiceError.badRequest("the transaction is of another subscription")
        }

        func answer(_ s: RenewalSnapshot, wanted: BadgeType) throws -> RPCResponse? {
            guard s.tip.balanceBadgeType == wanted else { return nil }
            let credential = s.latest.flatMap { $0.badgeType == wanted && isPeriodCurrent(periodEnd: $0.periodEnd, at: now)
                ? $0.credential(masterKey: purchase.masterKey) : nil }
            return .badgeCredential(credential: credential, statement: statement(of: s.rows, asserting: balance.lastEntry).statement,
                                    receipt: nil, subscription: s.record.lastState)
        }
        // A repeat of an upgrade already granted: the tier is the granted charge's, as recorded, so
        // a product retired since does not change the answer.
        let known = try store.read { try renewalSnapshot($0, purchase: purchase, funding: funding) }
        if let granted = known.charges.first(where: { $0.chargeId == transaction.transactionId && $0.grantedAt != nil }),
           let held = try answer(known, wanted: granted.badgeType) {
            return held
        }
        let product = try appStoreProduct(of: transaction)
        guard product.kind == .subscription else {
            throw BadgeServiceError.badRequest("the transaction is of no subscription product")
        }
        let wanted = product.badgeType
        if let held = try answer(known, wanted: wanted) { return held }

        if let left = try claimSubscriptionCheck(store: "apple", reference: record.reference, path: .renewal, now: now) {
            throw BadgeServiceError.paymentPending(retryAfter: left)
        }
        let nextCheck = UInt32(SubscriptionWindow.seconds)
        guard let adapter = subscriptionStore(named: "apple") else {
            throw BadgeServiceError.providerNotConfigured("apple subscriptions")
        }
        let reading: SubscriptionReading
        switch readSubscription(adapter, reference: record.reference, now: now) {
        case .success(let read): reading = read
        case .failure(let refusal):
            if case .internal = refusal.kind { throw BadgeServiceError(refusal, store: "apple", floor: nextCheck) }
            throw BadgeServiceError.paymentPending(retryAfter: nextCheck)
        }

        return try conditionalWrite(read: { r in try renewalSnapshot(r, purchase: purchase, funding: funding) }, decide: { s in
            if let held = try answer(s, wanted: wanted) { return .answer(held) }
            let coverageRuns = s.afterLapse(at: now).balanceMonths > 0
            guard case .success(let charge) = reading.charge,
                  !s.charges.contains(where: { $0.chargeId == charge.chargeId && $0.grantedAt != nil }),
                  charge.badgeType != s.tip.balanceBadgeType || !coverageRuns
            else {
                // Nothing to grant yet: the read is recorded, the client asks again after the next check's hour.
                let pending = StagedAnswer<RPCResponse>(answer: RPCResponse(BadgeServiceError.paymentPending(retryAfter: nextCheck)),
                                                        write: { w in try self.noteRead(reading, of: s.record.id, at: now, in: w) })
                return pending
            }
            let plan: LedgerPlan
            do {
                plan = try planCharge(from: s.tip, months: charge.months, chargeId: charge.chargeId, badgeType: charge.badgeType,
                                      periodStart: charge.periodStart, purchaseKey: purchase.purchaseKey, now: now,
                                      pausedSince: s.pausedSince, newId: newEntryId)
            } catch LedgerError.periodStartAfterNow {
                return StagedAnswer(answer: RPCResponse(BadgeServiceError.paymentPending(retryAfter: nextCheck)), write: nil)
            } catch {
                throw BadgeServiceError.internal(detail: "planning a subscription upgrade: \(error)")
            }
            var credential: BadgeCredential?
            if let period = plan.issued { credential = try sign(masterKey: purchase.masterKey, period: period) }
            let granted = plan.tip.balanceBadgeType == wanted
            let response = granted
                ? RPCResponse.badgeCredential(credential: credential,
                                              statement: statement(of: s.rows + plan.rows, asserting: balance.lastEntry).statement,
                                              receipt: nil, subscription: reading.state)
                : RPCResponse(BadgeServiceError.paymentPending(retryAfter: nextCheck))
            return .answer(response) { w in
                // The grant is issuance: on a paused purchase it is the resume (docs/protocol.md, Pause).
                try w.endPause(purchaseId: purchase.id, expected: s.pausedSince)
                try w.appendLedger(purchaseId: purchase.id, expectedCount: s.rows.count, entries: plan.rows)
                if let period = plan.issued, let credential {
                    try w.insertIssuance(IssuanceRecord(period: period, purchaseId: purchase.id, credential: credential))
                }
                guard var current = try w.subscription(id: s.record.id), current.purchaseId == purchase.id else {
                    throw StorageError.conflict(constraint: "subscription moved during an upgrade")
                }
                try self.grantCharge(charge, of: &current, to: purchase.id, reading: reading, at: now, in: w)
                if charge.badgeType != purchase.badgeType { try w.setPurchaseBadgeType(purchaseId: purchase.id, charge.badgeType) }
            }
        })
    }
}
