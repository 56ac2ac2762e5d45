import AppStore
import BadgeCore
import Crypto
import Ledger
import Schema
import Storage

extension BadgeService {
    /// `transferBadge`: Restore on another device or profile (spec, transferBadge); a key whose only
    /// record is an invoice is refused (bad_request). App Store evidence is verified offline and
    /// claimed by its original transaction id, the transaction presented being required to be the
    /// subscription's latest charge; Play's is claimed by its token
    /// (``transferByGooglePlay(key:masterKey:productId:token:now:)``).
    func transferBadge(key: Ed25519PublicKey, masterKey: [UInt8], payment: Payment, now: Timestamp) throws -> RPCResponse {
        // The spec's transferBadge requires a key the service holds no record of, and an invoice is
        // one: credited here, the key could never be credited the invoice it may yet pay.
        let invoiceOnly = try store.read { r in
            try r.purchase(key: key.purchaseKeyText) == nil && !r.invoices(purchaseKey: key.purchaseKeyText).isEmpty
        }
        if invoiceOnly { throw BadgeServiceError.badRequest("this purchase key holds an invoice") }
        switch payment {
        case .apple(let jws):
            guard appStore != nil else { throw BadgeServiceError.providerNotConfigured("apple") }
            let claim: AppStoreClaim
            do { claim = try AppStoreClaim.read(jws) } catch {
                configuration.reportProviderFailure("apple: \(error)")
                throw BadgeServiceError(error)
            }
            // A one-time purchase is not moved (its months were issued at purchase): one credited to
            // a key answers as purchaseBadge does (receipt_used, or the same answer to that key), and
            // one credited to no key (a purchaseBadge whose answer was lost) is credited as by it.
            guard claim.isAutoRenewable else {
                return try purchaseByAppStore(key: key, masterKey: masterKey, jws: jws, upgrade: nil, now: now)
            }
            // Already moved to (or credited to) this key: the record answers, whatever the catalog
            // prices today; the store's evidence is judged only for a move.
            let known = try store.read { r in
                try subscriptionClaim(r, purchaseKey: key.purchaseKeyText, store: "apple", reference: claim.purchaseId)
            }
            if let replay = try known.replayToItsHolder() { return replay }
            let transaction = try verifiedAppStoreSubscription(jws)
            return try transferBySubscription(key: key, masterKey: masterKey, store: "apple",
                                              reference: transaction.originalTransactionId,
                                              presentedChargeId: transaction.transactionId, now: now)
        case .google(let productId, let token):
            return try transferByGooglePlay(key: key, masterKey: masterKey, productId: productId, token: token, now: now)
        default:
            throw BadgeServiceError.badRequest("transferBadge moves a store subscription: pay with apple or google")
        }
    }

    /// Moves the store subscription `reference` names to the signing key, which must hold no purchase
    /// yet (bad_request). Already moved to it: the same answer from the record, without asking or the
    /// move limit. Credited to no key: as purchaseBadge. Otherwise a move is refused transfer_limited
    /// while the credential issued to the key it last moved from is valid; then the store is asked at
    /// most once an hour on this path (its own hour), its charge judged as a first purchase's (and,
    /// when `presentedChargeId` is given, required to be the latest: else payment_pending), the old
    /// purchase lapsed and debited `transferOut {toPurchaseKey}` of what remains, even none, and the new
    /// one credited that charge from its period start with the month due issued.
    public func transferBySubscription(key: Ed25519PublicKey, masterKey: [UInt8], store storeName: String, reference: String,
                                       presentedChargeId: String?, now: Timestamp) throws -> RPCResponse {
        guard let adapter = subscriptionStore(named: storeName) else {
            throw BadgeServiceError.providerNotConfigured("\(storeName) subscriptions")
        }
        return try transferBySubscription(key: key, masterKey: masterKey, adapter: adapter, reference: reference,
                                          presentedChargeId: presentedChargeId, now: now)
    }

    /// ``transferBySubscription(key:masterKey:store:reference:presentedChargeId:now:)`` asking `adapter`,
    /// made for this request. `mayAsk` goes to the first crediting of a subscription no key holds
    /// (``purchaseBySubscription(key:masterKey:adapter:reference:now:mayAsk:)``): that is a purchase,
    /// under the purchase path's budget; a move is not.
    public func transferBySubscription(key: Ed25519PublicKey, masterKey: [UInt8], adapter: any SubscriptionStore,
                                       reference: String, presentedChargeId: String?, now: Timestamp,
                                       mayAsk: (() throws -> Void)? = nil) throws -> RPCResponse {
        let storeName = adapter.name
        let purchaseKey = key.purchaseKeyText
        let known = try store.read { r in try transferSnapshot(r, purchaseKey: purchaseKey, store: storeName, reference: reference) }
        if let answer = try known.answerFromRecord(service: self) { return answer }
        guard let record = known.record, record.purchaseId != nil else {
            return try purchaseBySubscription(key: key, masterKey: masterKey, adapter: adapter, reference: reference, now: now,
                                              mayAsk: mayAsk)
        }
        if let limit = known.movedFromExpiry, now < limit { throw BadgeServiceError.transferLimited }

        if let left = try claimSubscriptionCheck(store: storeName, reference: reference, path: .transfer, now: now) {
            throw BadgeServiceError.paymentPending(retryAfter: left)
        }
        let hour = SubscriptionRefusal.hour
        let reading = try readSubscription(adapter, reference: reference, now: now)
            .mapError { BadgeServiceError($0, store: storeName, floor: hour) }.get()
        let charge = try reading.charge.mapError { BadgeServiceError($0, store: storeName, floor: hour) }.get()
        // An older receipt stops moving the subscription once the store charges again.
        if let presentedChargeId, presentedChargeId != reading.latestChargeId {
            throw BadgeServiceError.paymentPending(retryAfter: hour)
        }
        try confirmIfNeeded(charge, of: reading, adapter: adapter, reference: reference, floor: hour)

        return try conditionalWrite(read: { r in
            try transferSnapshot(r, purchaseKey: purchaseKey, store: storeName, reference: reference)
        }, decide: { s in
            if let answer = try s.answerFromRecord(service: self) { return .answer(answer) }
            guard let record = s.record, let oldId = record.purchaseId, let old = s.holder else {
                throw StorageError.conflict(constraint: "subscription holder changed during a transfer")
            }
            if let limit = s.movedFromExpiry, now < limit { throw BadgeServiceError.transferLimited }
            let oldTip = s.holderRows.last ?? .emptyEntry(at: old.createdAt, badgeType: old.badgeType)
            let ending: [LedgerEntry]
            do {
                ending = try planEnding(from: oldTip, debit: .transferOut(toPurchaseKey: purchaseKey), at: now,
                                        pausedSince: s.holderPausedSince, newId: newEntryId)
            } catch {
                throw BadgeServiceError.internal(detail: "planning a transfer out: \(error)")
            }
            let (plan, period) = try planFirstCharge(charge, now: now)
            let credential = try sign(masterKey: masterKey, period: period)
            let receipt = Self.recoveryReceipt(masterKey: masterKey, invoiceId: "\(storeName):" + reference)
            let response = RPCResponse.badgeCredential(credential: credential, statement: Statement(entries: plan.rows),
                                                       receipt: receipt, subscription: reading.state)
            return .answer(response) { w in
                guard try w.purchase(key: purchaseKey) == nil,
                      var current = try w.subscription(store: storeName, reference: reference), current.purchaseId == oldId
                else { throw StorageError.conflict(constraint: "subscription transfer raced") }
                // Taken back since the store was read (a refund notice landing meanwhile): never granted.
                guard try !w.isRefunded(ProviderRefund(provider: storeName, kind: .charge, reference: charge.chargeId)) else {
                    throw StorageError.conflict(constraint: "subscription charge taken back")
                }
                try w.appendLedger(purchaseId: oldId, expectedCount: s.holderRows.count, entries: ending)
                // The old purchase is emptied and moved away: its pause, if any, ends with the transferOut.
                try w.endPause(purchaseId: oldId, expected: s.holderPausedSince)
                guard try w.markSubscriptionMovedAway(purchaseId: oldId, at: now) else {
                    throw StorageError.conflict(constraint: "subscription already moved away")
                }
                let purchase = try w.insertPurchase(key: purchaseKey, masterKey: masterKey, badgeType: charge.badgeType, at: now)
                try w.appendLedger(purchaseId: purchase.id, expectedCount: 0, entries: plan.rows)
                try w.insertIssuance(IssuanceRecord(period: period, purchaseId: purchase.id, credential: credential))
                try w.insertReceipt(hash: SHA256.hash(Array(receipt.utf8)), purchaseId: purchase.id)
                // The charge moves with the subscription: granted once to the old purchase, or now.
                _ = try w.recordSubscriptionCharge(SubscriptionChargeRecord(charge, subscriptionId: current.id, seenAt: now))
                _ = try w.grantSubscriptionCharge(subscriptionId: current.id, chargeId: charge.chargeId, at: now)
                current.purchaseId = purchase.id
                current.grantedChargeId = charge.chargeId
                current.movedFromPurchaseId = oldId
                current.movedAt = now
                current.note(reading, at: now)
                try w.updateSubscription(current)
                try w.insertSubscriptionFunding(SubscriptionFunding(purchaseId: purchase.id, subscriptionId: current.id))
            }
        })
    }

    func transferSnapshot(_ r: any StoreReader, purchaseKey: String, store: String, reference: String) throws -> TransferSnapshot {
        let claim = try subscriptionClaim(r, purchaseKey: purchaseKey, store: store, reference: reference)
        let holder = try claim.record?.purchaseId.flatMap { try r.purchase(id: $0) }
        let movedFromExpiry = try claim.record?.movedFromPurchaseId.flatMap { try r.latestIssuance(purchaseId: $0)?.expiry }
        return TransferSnapshot(claim: claim, holder: holder, holderRows: try holder.map { try r.ledger(purchaseId: $0.id) } ?? [],
                                holderPausedSince: try holder.flatMap { try r.pausedSince(purchaseId: $0.id) },
                                movedFromExpiry: movedFromExpiry)
    }
}

/// A subscription presented to transferBadge, as the record knows it.
struct TransferSnapshot {
    let claim: SubscriptionClaim
    /// The purchase the subscription funds now, and its ledger.
    let holder: PurchaseRecord?
    let holderRows: [LedgerEntry]
    /// When the holder was paused, if it is.
    let holderPausedSince: Timestamp?
    /// When the credential issued to the key it last moved from expires.
    let movedFromExpiry: Timestamp?

    var record: SubscriptionRecord? { claim.record }

    /// Already moved to (or credited to) the signing key: the same answer from the record, or
    /// `ended` with no credential once it moved on from that key, as every command answers an old
    /// purchase (a repeat of the request whose answer was lost); a key holding another purchase:
    /// bad_request; nil when the subscription is to be moved or credited.
    func answerFromRecord(service: BadgeService) throws -> RPCResponse? {
        if let record, claim.purchase != nil, let funding = claim.funding, funding.subscriptionId == record.id {
            return try claim.answerFromRecord()
        }
        if claim.purchase != nil { throw BadgeServiceError.badRequest("this purchase key already holds a badge") }
        return nil
    }
}
