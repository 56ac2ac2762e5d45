import BadgeCore
import Crypto
import Ledger
import Schema
import Providers
import Storage

extension BadgeService {
    /// `purchaseBadge` funded by a recovery `receipt` (docs/protocol.md, Funding by receipt): a
    /// transfer. The purchase holding the receipt is lapsed and debited `transferOut` of its
    /// unissued months (even none); a new purchase under the signing key is credited them as
    /// `transferIn`, its month due issued, and the receipt retired for a fresh one, returned.
    ///
    /// A repeat by the key it funded answers the same (the fresh receipt is derived, never
    /// stored); another key gets receipt_used; a receipt never issued, or of a refunded purchase,
    /// receipt_invalid; the receipt of a purchase a store subscription funds, bad_request (the
    /// subscription moves with transferBadge).
    func purchaseByReceipt(key: Ed25519PublicKey, masterKey: [UInt8], receipt: String, now: Timestamp) throws -> RPCResponse {
        let purchaseKey = key.purchaseKeyText
        let hash = SHA256.hash(Array(receipt.utf8))
        return try conditionalWrite(read: { r in
            let holder = try r.receiptHolder(hash: hash)
            let source = try holder.flatMap { try r.purchase(id: $0) }
            return (purchase: try r.purchase(key: purchaseKey), transfer: try r.receiptTransfer(hash: hash), source: source,
                    sourceRows: try holder.map { try r.ledger(purchaseId: $0) } ?? [],
                    sourcePausedSince: try holder.flatMap { try r.pausedSince(purchaseId: $0) },
                    sourceHeld: try holder.map { try isHeld(purchaseId: $0, in: r) } ?? false,
                    sourceSubscription: try holder.flatMap { try r.subscriptionFunding(purchaseId: $0) },
                    sourceSubscriptionRecord: try holder.flatMap { try r.subscriptionFunding(purchaseId: $0) }
                        .flatMap { try r.subscription(id: $0.subscriptionId) },
                    sourceUpgrades: try holder.map { id in
                        try r.invoiceUpgrades(fromPurchaseId: id).compactMap { try r.invoice(id: $0.invoiceId) }
                    } ?? [])
        }, decide: { s in
            if let transfer = s.transfer {
                guard let purchase = s.purchase, purchase.id == transfer.to else { throw BadgeServiceError.receiptUsed }
                return .answer(try replay(purchase, receipt: Self.transferredReceipt(masterKey: purchase.masterKey, retired: hash)))
            }
            // Lifetime badges and code redemptions hold no receipt: whatever is presented for them is unknown.
            guard let source = s.source else { throw BadgeServiceError.receiptInvalid }
            if let purchase = s.purchase {
                // The holder presenting its own receipt: nothing moves, the record answers.
                guard purchase.id == source.id else {
                    throw BadgeServiceError.badRequest("this purchase key already holds a badge")
                }
                // One a store subscription funds answers as the subscription's own repeat does: with
                // its state, and `ended` with no credential once transferBadge moved it away.
                let subscription = SubscriptionClaim(service: self, purchase: purchase, record: s.sourceSubscriptionRecord,
                                                     funding: s.sourceSubscription)
                if let answer = try subscription.replayToItsHolder() { return .answer(answer) }
                return .answer(try replay(purchase, receipt: receipt))
            }
            // A store subscription keeps charging the purchase it funds: Restore (transferBadge) moves it.
            if s.sourceSubscription != nil {
                throw BadgeServiceError.badRequest("a purchase funded by a store subscription moves with transferBadge")
            }
            // The months an open upgrade invoice credited stay until it settles or expires.
            if s.sourceUpgrades.contains(where: { Self.mayStillSettle($0, at: now, late: providers.lateSettlement(of: $0.provider)) }) {
                throw BadgeServiceError.badRequest("an upgrade of this purchase is open")
            }
            // receipt_invalid covers refunded receipts: the refund already took the months (a
            // partial refund leaves the rest movable).
            if s.sourceRows.contains(where: Self.isEmptyingRefund) { throw BadgeServiceError.receiptInvalid }
            // A disputed payment's months stay where the dispute can reach them until it closes.
            if s.sourceHeld { throw BadgeServiceError.paymentPending(retryAfter: Self.disputeRetrySeconds) }

            let tip = s.sourceRows.last ?? .emptyEntry(at: source.createdAt, badgeType: source.badgeType)
            let plan: ReceiptTransferPlan
            do {
                plan = try planReceiptTransfer(from: tip, sourcePausedSince: s.sourcePausedSince,
                                               fromPurchaseKey: source.purchaseKey, toPurchaseKey: purchaseKey, at: now,
                                               newId: newEntryId)
            } catch {
                throw BadgeServiceError.internal(detail: "planning the receipt transfer: \(error)")
            }
            let destination = plan.destination
            let credential = try destination.issued.map { try sign(masterKey: masterKey, period: $0) }
            let fresh = Self.transferredReceipt(masterKey: masterKey, retired: hash)
            let badgeType = destination.tip.balanceBadgeType
            let response = RPCResponse.badgeCredential(credential: credential, statement: Statement(entries: destination.rows),
                                                       receipt: fresh, subscription: nil)
            return .answer(response) { w in
                guard try w.purchase(key: purchaseKey) == nil else { throw StorageError.conflict(constraint: "key taken") }
                // An upgrade invoice opened since the read holds these months (the pass is re-run and refused).
                if try Self.holdsPayableUpgrade(source.id, in: w, at: now, providers: self.providers) {
                    throw StorageError.conflict(constraint: "an upgrade of the receipt's purchase opened")
                }
                try w.appendLedger(purchaseId: source.id, expectedCount: s.sourceRows.count, entries: plan.sourceRows)
                // The source is emptied and moved away: its pause, if any, ends with the transferOut.
                try w.endPause(purchaseId: source.id, expected: s.sourcePausedSince)
                let purchase = try w.insertPurchase(key: purchaseKey, masterKey: masterKey, badgeType: badgeType, at: now)
                try w.appendLedger(purchaseId: purchase.id, expectedCount: 0, entries: destination.rows)
                if let period = destination.issued, let credential {
                    try w.insertIssuance(IssuanceRecord(period: period, purchaseId: purchase.id, credential: credential))
                }
                try w.retireReceipt(hash: hash, from: source.id, to: purchase.id, at: now)
                try w.insertReceipt(hash: SHA256.hash(Array(fresh.utf8)), purchaseId: purchase.id)
            }
        })
    }

    /// A refund row that left the purchase no months: a full refund (a partial one leaves some).
    static func isEmptyingRefund(_ row: LedgerEntry) -> Bool {
        row.entryType == .debit(.refund) && row.balanceMonths == 0
    }

    /// The fresh receipt a retired one is exchanged for: derived from the new purchase's master
    /// key and the retired receipt's hash, so a repeat answers the same while only hashes are stored.
    static func transferredReceipt(masterKey: [UInt8], retired hash: [UInt8]) -> String {
        recoveryReceipt(masterKey: masterKey, invoiceId: "receipt:" + Base64URL.encode(hash))
    }
}
