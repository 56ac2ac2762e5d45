import BadgeCore
import Ledger
import Storage

/// The badge ledger's listener, the first of every deployment: a one-time purchase credited from
/// the payment the store took back has its unissued months debited `refund` at once, as a card
/// refund does, and one not credited yet is recorded refunded, so it never is; a subscription
/// purchase follows the renewal check's rule (``RenewalSnapshot/endsCoverage(_:at:)``): a revoked
/// subscription, or a taken-back charge its running coverage was granted for, lapses what ran
/// out, debits the rest `refund`, and the subscription reads `ended`, without waiting for the
/// next renewal check. Every charge taken back is recorded, so no later reading grants it.
struct BadgeLedgerRefunds: StoreNotificationListener {
    let service: BadgeService

    func apply(_ notice: StoreRefundNotice, in w: any StoreWriter, at now: Timestamp) throws -> String? {
        // A Sandbox purchase never funded a badge here unless Sandbox is credited (test_purchase).
        if notice.sandbox && !(service.appStore?.verifier.creditsSandbox ?? false) { return nil }
        switch notice.productKind {
        case .oneTime:
            guard let purchaseId = try w.creditedPurchase(provider: notice.store.rawValue, providerRef: notice.paymentReference)
            else {
                // Not presented yet (an App Store transaction signed before the refund carries no
                // revocationDate): kept, so presenting it later is receipt_invalid.
                let recorded = try w.recordRefund(ProviderRefund(provider: notice.store.rawValue, kind: .payment,
                                                                 reference: notice.paymentReference), at: now)
                return recorded ? "refund of a payment not credited yet recorded" : nil
            }
            return "badge refund debited \(try service.debitRefund(purchaseId: purchaseId, in: w, at: now)) months"
        case .subscription:
            // Kept whatever follows: a check or a first purchase that reads this charge later never
            // grants it, and Play goes on reporting a voided order as the latest successful one.
            var chargeRecorded: String?
            if let charge = notice.chargeId,
               try w.recordRefund(ProviderRefund(provider: notice.store.rawValue, kind: .charge, reference: charge), at: now) {
                chargeRecorded = "refund of a charge not granted recorded"
            }
            guard let reference = notice.subscriptionReference,
                  var record = try w.subscription(store: notice.store.rawValue, reference: reference)
            else { return chargeRecorded }
            let reading = SubscriptionReading(
                state: notice.chargeId == nil ? .ended : record.lastState,
                latestChargeId: notice.chargeId ?? record.latestChargeId,
                latestChargeRevoked: notice.chargeId != nil || record.latestChargeRevoked,
                charge: .failure(SubscriptionRefusal(.paymentPending(retryAfter: SubscriptionRefusal.day),
                                                     "the store took the charge back")))
            if let purchaseId = record.purchaseId, let purchase = try w.purchase(id: purchaseId),
               let funding = try w.subscriptionFunding(purchaseId: purchaseId), funding.subscriptionId == record.id,
               funding.movedAwayAt == nil {
                let s = try service.renewalSnapshot(w, purchase: purchase, funding: funding)
                if s.endsCoverage(reading, at: now) {
                    let rows = try s.coverageEnding(at: now, newId: service.newEntryId)
                    // A refund empties the purchase, so it ends a pause too, as the renewal check does.
                    try w.endPause(purchaseId: purchaseId, expected: s.pausedSince)
                    try w.appendLedger(purchaseId: purchaseId, expectedCount: s.rows.count, entries: rows)
                    var ended = reading
                    ended.state = .ended
                    record.note(ended, at: now)
                    try w.updateSubscription(record)
                    let months = rows.last(where: { $0.entryType == .debit(.refund) }).map { -$0.changeMonths } ?? 0
                    return "subscription ended, refund debited \(months) months"
                }
            }
            // Nothing to end: the charge is only marked taken back, so no later check grants it
            // from what the store said before.
            if let charge = notice.chargeId, charge == record.latestChargeId, !record.latestChargeRevoked {
                record.latestChargeRevoked = true
                try w.updateSubscription(record)
                return "subscription charge marked revoked"
            }
            return chargeRecorded
        }
    }
}

extension BadgeService {
    /// Every listener of verified store refunds: the badge ledger first, then the deployment's.
    var storeNotificationListeners: [any StoreNotificationListener] {
        [BadgeLedgerRefunds(service: self)] + extraStoreListeners
    }

    /// Applies a verified store notification once: its delivery id (Apple's `notificationUUID`,
    /// Pub/Sub's `messageId`) recorded in the same transaction as every listener's writes, so a
    /// redelivery is `duplicate`. A nil `notice` is a notification this service does not act on:
    /// recorded, and `ignored` with `why`.
    func applyStoreNotice(_ notice: StoreRefundNotice?, provider: String, deliveryId: String, why: String) -> SettlementOutcome {
        let now = clock()
        let outcome = settlementWrite { w in
            guard try w.recordProviderEvent(provider: provider, eventId: deliveryId, at: now) else { return .duplicate }
            guard let notice else { return .ignored(why) }
            var done: [String] = []
            for listener in storeNotificationListeners {
                if let what = try listener.apply(notice, in: w, at: now) { done.append(what) }
            }
            return done.isEmpty ? .ignored("\(why) of nothing this service credited") : .applied(done.joined(separator: "; "))
        }
        configuration.reportStoreNotification("\(provider) notification \(why): \(outcome.result)")
        return outcome
    }
}
