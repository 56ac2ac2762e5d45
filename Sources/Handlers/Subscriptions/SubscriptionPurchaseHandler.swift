import BadgeCore
import Crypto
import Ledger
import Schema
import Storage

extension BadgeService {
    /// `purchaseBadge` funded by a store subscription (spec: purchaseBadge "Subscriptions"), once the
    /// store's evidence named `reference` (an App Store original transaction id verified offline, a
    /// Play purchase token). A subscription already credited to the signing key is answered from the
    /// record without asking; one credited to another key is receipt_used. Otherwise the store is
    /// asked at most once an hour per reference on this path (payment_pending with the time left),
    /// and its latest charge, when the first-charge rule allows it, is confirmed if the store needs
    /// that, credited `charge {chargeId}` dated to its period start, the month due issued and the
    /// recovery receipt returned. A refusal writes nothing but the hour.
    public func purchaseBySubscription(key: Ed25519PublicKey, masterKey: [UInt8], store storeName: String,
                                       reference: String, now: Timestamp) throws -> RPCResponse {
        guard let adapter = subscriptionStore(named: storeName) else {
            throw BadgeServiceError.providerNotConfigured("\(storeName) subscriptions")
        }
        return try purchaseBySubscription(key: key, masterKey: masterKey, adapter: adapter, reference: reference, now: now)
    }

    /// ``purchaseBySubscription(key:masterKey:store:reference:now:)`` asking `adapter`, made for this
    /// request (a Play adapter that knows the product claimed and counts its checks); renewal checks
    /// later ask the deployment's `subscriptionStores` entry of the same `name`. `mayAsk` runs once the
    /// hour allows asking, before it is taken: what it throws is the answer, and the hour is not
    /// taken (Play's checks-a-minute budget).
    public func purchaseBySubscription(key: Ed25519PublicKey, masterKey: [UInt8], adapter: any SubscriptionStore,
                                       reference: String, now: Timestamp, mayAsk: (() throws -> Void)? = nil) throws -> RPCResponse {
        let storeName = adapter.name
        let purchaseKey = key.purchaseKeyText
        let known = try store.read { r in try subscriptionClaim(r, purchaseKey: purchaseKey, store: storeName, reference: reference) }
        if let answer = try known.answerFromRecord() { return answer }

        if let left = try claimSubscriptionCheck(store: storeName, reference: reference, path: .purchase, now: now, mayAsk: mayAsk) {
            throw BadgeServiceError.paymentPending(retryAfter: left)
        }
        let hour = SubscriptionRefusal.hour
        let reading = try readSubscription(adapter, reference: reference, now: now)
            .mapError { BadgeServiceError($0, store: storeName, floor: hour) }.get()
        let charge = try reading.charge.mapError { BadgeServiceError($0, store: storeName, floor: hour) }.get()
        try confirmIfNeeded(charge, of: reading, adapter: adapter, reference: reference, floor: hour)

        return try conditionalWrite(read: { r in
            try subscriptionClaim(r, purchaseKey: purchaseKey, store: storeName, reference: reference)
        }, decide: { s in
            // Another request may have credited it while the store was asked.
            if let answer = try s.answerFromRecord() { return .answer(answer) }
            let (plan, period) = try planFirstCharge(charge, now: now)
            let credential = try sign(masterKey: masterKey, period: period)
            let receipt = Self.recoveryReceipt(masterKey: masterKey, invoiceId: "\(storeName):" + reference)
            let response = RPCResponse.badgeCredential(credential: credential, statement: Statement(entries: plan.rows),
                                                       receipt: receipt, subscription: reading.state)
            return .answer(response) { w in
                guard try w.purchase(key: purchaseKey) == nil,
                      var record = try w.subscription(store: storeName, reference: reference), record.purchaseId == nil
                else { throw StorageError.conflict(constraint: "subscription credit raced") }
                let purchase = try w.insertPurchase(key: purchaseKey, masterKey: masterKey, badgeType: charge.badgeType, at: now)
                try w.appendLedger(purchaseId: purchase.id, expectedCount: 0, entries: plan.rows)
                try w.insertIssuance(IssuanceRecord(period: period, purchaseId: purchase.id, credential: credential))
                try w.insertReceipt(hash: SHA256.hash(Array(receipt.utf8)), purchaseId: purchase.id)
                try self.grantCharge(charge, of: &record, to: purchase.id, reading: reading, at: now, in: w)
                try w.insertSubscriptionFunding(SubscriptionFunding(purchaseId: purchase.id, subscriptionId: record.id))
            }
        })
    }

    /// Records `charge` granted to `purchaseId` (at most once, ever) and the read it came from (nil
    /// when the last read answered, which stays as it was). A charge taken back since it was read
    /// (a refund notice landing meanwhile) is a conflict: never granted.
    func grantCharge(_ charge: StoreCharge, of record: inout SubscriptionRecord, to purchaseId: Int64,
                     reading: SubscriptionReading?, at now: Timestamp, in w: any StoreWriter) throws {
        guard try !w.isRefunded(ProviderRefund(provider: record.store, kind: .charge, reference: charge.chargeId)) else {
            throw StorageError.conflict(constraint: "subscription charge taken back")
        }
        _ = try w.recordSubscriptionCharge(SubscriptionChargeRecord(charge, subscriptionId: record.id, seenAt: now))
        guard try w.grantSubscriptionCharge(subscriptionId: record.id, chargeId: charge.chargeId, at: now) else {
            throw StorageError.conflict(constraint: "subscription charge already granted")
        }
        record.purchaseId = purchaseId
        record.grantedChargeId = charge.chargeId
        if let reading { record.note(reading, at: now) }
        try w.updateSubscription(record)
    }

    /// What the record says of a subscription presented by `purchaseKey`.
    func subscriptionClaim(_ r: any StoreReader, purchaseKey: String, store: String,
                           reference: String) throws -> SubscriptionClaim {
        let purchase = try r.purchase(key: purchaseKey)
        let record = try r.subscription(store: store, reference: reference)
        let funding = try purchase.flatMap { try r.subscriptionFunding(purchaseId: $0.id) }
        return SubscriptionClaim(service: self, purchase: purchase, record: record, funding: funding)
    }
}

/// A subscription presented to purchaseBadge, as the record knows it.
struct SubscriptionClaim {
    let service: BadgeService
    let purchase: PurchaseRecord?
    let record: SubscriptionRecord?
    /// The subscription that funds (or funded) the signing key's purchase.
    let funding: SubscriptionFunding?

    /// The same answer again when the signing key holds this subscription's purchase (or held it
    /// until the subscription moved away); nil otherwise.
    func replayToItsHolder() throws -> RPCResponse? {
        guard let record, let purchase, let funding, funding.subscriptionId == record.id else { return nil }
        if funding.movedAwayAt != nil {
            return try service.replay(purchase, credential: false, subscription: .ended)
        }
        return try service.replay(purchase, receipt: BadgeService.recoveryReceipt(
            masterKey: purchase.masterKey, invoiceId: "\(record.store):" + record.reference), subscription: record.lastState)
    }

    /// The answer the record gives without asking the store: the same credential for the key it
    /// was credited to (ended, with none, once it moved away), receipt_used for another key,
    /// bad_request for a key already holding another purchase; nil when the store must be asked.
    func answerFromRecord() throws -> RPCResponse? {
        if let replay = try replayToItsHolder() { return replay }
        if record?.purchaseId != nil { throw BadgeServiceError.receiptUsed }
        if purchase != nil { throw BadgeServiceError.badRequest("this purchase key already holds a badge") }
        return nil
    }
}
