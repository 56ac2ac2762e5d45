import AppStore
import BadgeCore
import Crypto
import Ledger
import Schema
import Storage

/// What this deployment knows of the App Store: the offline verifier (`[apple]` with
/// `bundle_id` and `root_certificates`). The products it prices are in the database (`catalog products`).
public struct AppStoreFunding: Sendable {
    public let verifier: AppStoreVerifier

    public init(verifier: AppStoreVerifier) {
        self.verifier = verifier
    }
}

extension BadgeService {
    /// `purchaseBadge` funded by `apple`: the claim is read first; a transaction already
    /// credited to the signing key is answered from the record; otherwise the JWS is verified
    /// offline and each refusal answered in the spec's class. A verified one-time purchase of a
    /// priced product is credited `payment`, its first month issued and the recovery receipt
    /// returned, in one round trip; a transaction credited to another key is receipt_used.
    ///
    /// An upgrade SKU (kind `upgrade`) is credited the same way with `upgrade`, the proof of the
    /// cheaper badge it replaces (`judgeStoreUpgrade`), whose purchase is debited `upgrade`.
    func purchaseByAppStore(key: Ed25519PublicKey, masterKey: [UInt8], jws: String, upgrade: UpgradeProof?,
                            now: Timestamp) throws -> RPCResponse {
        guard let appStore else { throw BadgeServiceError.providerNotConfigured("apple") }
        let purchaseKey = key.purchaseKeyText
        let claim: AppStoreClaim
        do { claim = try AppStoreClaim.read(jws) } catch {
            configuration.reportProviderFailure("apple: \(error)")
            throw BadgeServiceError(error)
        }
        if claim.isAutoRenewable {
            if upgrade != nil { throw BadgeServiceError.badRequest("upgrade goes with an upgrade product") }
            return try purchaseByAppStoreSubscription(key: key, masterKey: masterKey, jws: jws, claim: claim, now: now)
        }
        let reference = claim.purchaseId
        let refund = ProviderRefund(provider: "apple", kind: .payment, reference: reference)

        return try conditionalWrite(read: { r in
            (purchase: try r.purchase(key: purchaseKey),
             creditedTo: try r.creditedPurchase(provider: "apple", providerRef: reference),
             refunded: try r.isRefunded(refund))
        }, decide: { s in
            if let purchase = s.purchase, s.creditedTo == purchase.id {
                return .answer(try replay(purchase, receipt: Self.recoveryReceipt(masterKey: purchase.masterKey,
                                                                                invoiceId: "apple:" + reference)))
            }
            let transaction: AppStoreTransaction
            switch appStore.verifier.verdict(onTransaction: jws) {
            case .refused(let refusal):
                configuration.reportProviderFailure("apple: \(refusal)")
                throw BadgeServiceError(refusal)
            case .verified(let verified, _): transaction = verified
            }
            // Refunded before it was presented: a transaction signed before the refund carries no
            // revocationDate, but the verified REFUND notification was kept.
            if s.refunded { throw BadgeServiceError.receiptInvalid }
            if s.creditedTo != nil { throw BadgeServiceError.receiptUsed }
            guard let product = try storeProducts().product(store: "apple", id: transaction.productId) else {
                throw BadgeServiceError.pricing(.productUnavailable)
            }
            if transaction.kind == .autoRenewable || product.kind == .subscription {
                guard transaction.kind == .autoRenewable, product.kind == .subscription else {
                    throw BadgeServiceError.internal(detail: "apple: product \(product.productId) is priced as \(product.kind.rawValue), the transaction is \(transaction.kind.rawValue)")
                }
                throw BadgeServiceError.internal(detail: "apple: an auto-renewable transaction its claim did not name as one")
            }
            if s.purchase != nil { throw BadgeServiceError.badRequest("this purchase key already holds a badge") }
            try checkUpgradePairing(upgrade, product: product)
            let upgrading = try upgrade.map { try judgeStoreUpgrade($0, toPurchaseKey: purchaseKey, product: product, now: now) }

            return try creditFirstPayment(purchaseKey: purchaseKey, masterKey: masterKey, months: product.months,
                                          badgeType: product.badgeType, invoiceId: nil, provider: "apple", providerRef: reference,
                                          receiptSeed: "apple:" + reference, what: "App Store", now: now, upgrading: upgrading,
                                          // A refund notice recorded meanwhile (its own transaction) wins.
                                          stillUnclaimed: { w in try !w.isRefunded(refund) })
        })
    }

    /// An auto-renewable subscription: verified offline as any transaction, its product one this
    /// service prices as a subscription, then claimed by its original transaction id, which every
    /// renewal keeps (``purchaseBySubscription(key:masterKey:store:reference:now:)``). A repeat by
    /// the key it was credited to is answered from the record first, as the one-time path does: a
    /// product retired since does not change the answer.
    func purchaseByAppStoreSubscription(key: Ed25519PublicKey, masterKey: [UInt8], jws: String, claim: AppStoreClaim,
                                        now: Timestamp) throws -> RPCResponse {
        let known = try store.read { r in
            try subscriptionClaim(r, purchaseKey: key.purchaseKeyText, store: "apple", reference: claim.purchaseId)
        }
        if let replay = try known.replayToItsHolder() { return replay }
        let transaction = try verifiedAppStoreSubscription(jws)
        return try purchaseBySubscription(key: key, masterKey: masterKey, store: "apple",
                                          reference: transaction.originalTransactionId, now: now)
    }

    /// An App Store transaction verified offline and the product it is of, which this service must
    /// price: each refusal in the spec's class.
    func verifiedAppStoreTransaction(_ jws: String) throws -> (transaction: AppStoreTransaction, product: StoreProduct) {
        guard let appStore else { throw BadgeServiceError.providerNotConfigured("apple") }
        let transaction: AppStoreTransaction
        switch appStore.verifier.verdict(onTransaction: jws) {
        case .refused(let refusal):
            configuration.reportProviderFailure("apple: \(refusal)")
            throw BadgeServiceError(refusal)
        case .verified(let verified, _): transaction = verified
        }
        guard let product = try storeProducts().product(store: "apple", id: transaction.productId) else {
            throw BadgeServiceError.pricing(.productUnavailable)
        }
        return (transaction, product)
    }

    /// A verified App Store transaction that must be of a subscription product (internal when the
    /// transaction and the product disagree on what it is).
    func verifiedAppStoreSubscription(_ jws: String) throws -> AppStoreTransaction {
        let (transaction, product) = try verifiedAppStoreTransaction(jws)
        guard transaction.kind == .autoRenewable, product.kind == .subscription else {
            throw BadgeServiceError.internal(detail: "apple: product \(product.productId) is priced as \(product.kind.rawValue), the transaction is \(transaction.kind.rawValue)")
        }
        return transaction
    }
}

extension BadgeServiceError {
    /// The spec's class of an App Store refusal; the reason goes to the log, never to the client.
    init(_ refusal: AppStoreRefusal) {
        self.init(refusal.answer, retryAfter: nil, detail: "apple: \(refusal.reason)")
    }
}
