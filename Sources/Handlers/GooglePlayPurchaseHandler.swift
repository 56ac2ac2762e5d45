import BadgeCore
import Crypto
import GooglePlay
import Ledger
import Schema
import Storage

/// What this deployment knows of Google Play: the Publisher API client (`[google]`) and the
/// purchase path's budget of subscription checks. The products and base plans it prices are in
/// the database (`catalog products`).
public struct GooglePlayFunding: Sendable {
    public let client: GooglePlayClient
    /// Whether Play's test purchases (license testers) are credited: `[development] credit_test_purchases`.
    public let creditsTestPurchases: Bool
    /// Shared by every request: at most 300 Play subscription checks a minute on the purchase path.
    public let subscriptionChecks: PlayCheckLimiter
    /// The authentication of real-time developer notifications (`POST /webhooks/google`); nil
    /// when `[google]` names no push audience and account (the route answers 501).
    public let push: PushAuthenticator?

    public init(client: GooglePlayClient, creditsTestPurchases: Bool = false, subscriptionChecks: PlayCheckLimiter,
                push: PushAuthenticator? = nil) {
        self.client = client
        self.creditsTestPurchases = creditsTestPurchases
        self.subscriptionChecks = subscriptionChecks
        self.push = push
    }

    /// The reader of Play subscriptions the renewal checks use (no product claimed, no budget: that
    /// path has its hour), pricing with the products `products` reads at each check.
    public func subscriptions(products: @escaping @Sendable () throws -> PlayProductMap) -> PlaySubscriptions {
        PlaySubscriptions(client: client, productsNow: products, creditsTestPurchases: creditsTestPurchases)
    }

    /// The payment's reference in the record: base64url(SHA-256(token)). A purchase token is a
    /// bearer secret of the buyer's, so only its digest is stored, and it still claims the purchase.
    public static func reference(token: String) -> String {
        Base64URL.encode(SHA256.hash(Array(token.utf8)), padded: false)
    }
}

extension BadgeService {
    /// `purchaseBadge` funded by `google`. The product id and token grammars are checked before
    /// anything else; a token already credited to the signing key is answered from the record
    /// without asking Play, one credited to another key is receipt_used. A one-time product is
    /// read with purchases.products.get, judged in the spec's class, acknowledged unless Play
    /// reports it acknowledged or consumed, then credited `payment` with its first month and the
    /// recovery receipt. Play is asked outside the write transaction.
    ///
    /// An upgrade SKU (kind `upgrade`, a Play one-time product) goes the same way with `upgrade`,
    /// the proof of the cheaper badge it replaces, judged before Play is asked (`judgeStoreUpgrade`).
    func purchaseByGooglePlay(key: Ed25519PublicKey, masterKey: [UInt8], productId: String, token: String,
                              upgrade: UpgradeProof?, now: Timestamp) throws -> RPCResponse {
        let (googlePlay, products) = try playEvidence(productId: productId, token: token)
        if products.subscriptions[productId] != nil {
            if upgrade != nil { throw BadgeServiceError.badRequest("upgrade goes with an upgrade product") }
            return try purchaseByPlaySubscription(key: key, masterKey: masterKey, productId: productId, token: token,
                                                  googlePlay: googlePlay, products: products, now: now)
        }
        let upgradeSKU = try storeProducts().of("google").first { $0.productId == productId && $0.kind == .upgrade }
        guard let grant = products.oneTime[productId] ?? upgradeSKU.map({ PlayGrant(badgeType: $0.badgeType, months: $0.months) })
        else {
            // Neither a one-time product nor a subscription this service prices; Play's answer
            // could change nothing of that, so it is not asked.
            throw BadgeServiceError.pricing(.productUnavailable)
        }
        let product = upgradeSKU ?? StoreProduct(store: "google", productId: productId, badgeType: grant.badgeType,
                                                 months: grant.months, kind: .oneTime)
        try checkUpgradePairing(upgrade, product: product)
        let purchaseKey = key.purchaseKeyText
        let reference = GooglePlayFunding.reference(token: token)
        let receiptSeed = "google:" + reference

        // From the record first: a replay or another key's token never reaches Play.
        let refund = ProviderRefund(provider: "google", kind: .payment, reference: reference)
        let (held, creditedTo, refunded) = try store.read { r in
            (try r.purchase(key: purchaseKey), try r.creditedPurchase(provider: "google", providerRef: reference),
             try r.isRefunded(refund))
        }
        if let held, creditedTo == held.id {
            return try replay(held, receipt: Self.recoveryReceipt(masterKey: held.masterKey, invoiceId: receiptSeed))
        }
        // Voided before it was presented (a verified voided-purchase notification was kept).
        if refunded { throw BadgeServiceError.receiptInvalid }
        if creditedTo != nil { throw BadgeServiceError.receiptUsed }
        if held != nil { throw BadgeServiceError.badRequest("this purchase key already holds a badge") }
        // Judged before Play is asked: a proof that fails never gets the purchase acknowledged.
        if let upgrade { _ = try judgeStoreUpgrade(upgrade, toPurchaseKey: purchaseKey, product: product, now: now) }

        let purchase: PlayOneTimePurchase
        do {
            purchase = try googlePlay.client.readOneTime(productID: productId, token: token,
                                                        creditsTest: googlePlay.creditsTestPurchases)
            // Nothing is credited unacknowledged: only acknowledgement stops Play refunding it.
            if !purchase.isAcknowledged {
                try googlePlay.client.acknowledgeOneTime(productID: productId, token: token)
            }
        } catch {
            throw report(error)
        }
        if purchase.isTest { configuration.reportProviderFailure("google: crediting a test purchase ([development] credit_test_purchases)") }

        return try conditionalWrite(read: { r in
            (purchase: try r.purchase(key: purchaseKey),
             creditedTo: try r.creditedPurchase(provider: "google", providerRef: reference),
             refunded: try r.isRefunded(refund))
        }, decide: { s in
            if let held = s.purchase, s.creditedTo == held.id {
                return .answer(try replay(held, receipt: Self.recoveryReceipt(masterKey: held.masterKey, invoiceId: receiptSeed)))
            }
            if s.refunded { throw BadgeServiceError.receiptInvalid }
            if s.creditedTo != nil { throw BadgeServiceError.receiptUsed }
            if s.purchase != nil { throw BadgeServiceError.badRequest("this purchase key already holds a badge") }
            let upgrading = try upgrade.map { try judgeStoreUpgrade($0, toPurchaseKey: purchaseKey, product: product, now: now) }
            return try creditFirstPayment(purchaseKey: purchaseKey, masterKey: masterKey, months: grant.months,
                                          badgeType: grant.badgeType, invoiceId: nil, provider: "google", providerRef: reference,
                                          receiptSeed: receiptSeed, what: "Google Play", now: now, upgrading: upgrading,
                                          // A voided-purchase notice recorded meanwhile (its own transaction) wins.
                                          stillUnclaimed: { w in try !w.isRefunded(refund) })
        })
    }

    /// A Play subscription product, claimed by its token (Play keeps it across renewals) and read
    /// by the store-agnostic subscription rules through ``PlaySubscriptions`` naming the product
    /// claimed. Across all requests this path asks Play about at most 300 subscriptions a minute:
    /// one presented when none is left is rate_limited with the seconds left in the minute, and its
    /// hour is not taken; the acknowledgement of one being credited counts as a check too.
    func purchaseByPlaySubscription(key: Ed25519PublicKey, masterKey: [UInt8], productId: String, token: String,
                                    googlePlay: GooglePlayFunding, products: PlayProductMap, now: Timestamp) throws -> RPCResponse {
        let checks = googlePlay.subscriptionChecks
        let adapter = PlaySubscriptions(client: googlePlay.client, products: products,
                                        creditsTestPurchases: googlePlay.creditsTestPurchases, claimedProductID: productId,
                                        beforeConfirm: { checks.count() })
        return try purchaseBySubscription(key: key, masterKey: masterKey, adapter: adapter, reference: token, now: now, mayAsk: {
            if let left = checks.take() { throw BadgeServiceError.playChecksUsed(retryAfter: left) }
        })
    }

    /// `transferBadge` funded by `google`: the product id and token grammars checked first; a
    /// one-time product is not moved (its months were issued at purchase) but answered as
    /// purchaseBadge answers it (receipt_used when another key holds it; credited when none does);
    /// a subscription product is moved by its token under the transfer path's own hour, Play's
    /// reader naming the product claimed (no per-minute budget: that is purchaseBadge's).
    func transferByGooglePlay(key: Ed25519PublicKey, masterKey: [UInt8], productId: String, token: String,
                              now: Timestamp) throws -> RPCResponse {
        let (googlePlay, products) = try playEvidence(productId: productId, token: token)
        if products.oneTime[productId] != nil {
            return try purchaseByGooglePlay(key: key, masterKey: masterKey, productId: productId, token: token, upgrade: nil, now: now)
        }
        guard products.subscriptions[productId] != nil else { throw BadgeServiceError.pricing(.productUnavailable) }
        let adapter = PlaySubscriptions(client: googlePlay.client, products: products,
                                        creditsTestPurchases: googlePlay.creditsTestPurchases, claimedProductID: productId)
        return try transferBySubscription(key: key, masterKey: masterKey, adapter: adapter, reference: token,
                                          presentedChargeId: nil, now: now)
    }

    /// The deployment's Play funding and products, once the product id and token grammars are
    /// checked: nothing reaches Play before this (purchaseBadge, transferBadge).
    func playEvidence(productId: String, token: String) throws -> (GooglePlayFunding, PlayProductMap) {
        guard let googlePlay else { throw BadgeServiceError.providerNotConfigured("google") }
        do {
            try PlayIdentifiers.checkProductID(productId)
            try PlayIdentifiers.checkToken(token)
        } catch {
            throw report(error)
        }
        return (googlePlay, try storeProducts().playMap)
    }

    /// Logs a Play refusal (its reason names no token) and turns it into the protocol's error.
    func report(_ refusal: PlayRefusal) -> BadgeServiceError {
        let error = BadgeServiceError(refusal)
        switch error {
        case .internal, .providerUnavailable: break  // logged where every command's are
        default: configuration.reportProviderFailure("google: \(refusal)")
        }
        return error
    }
}

extension StoreProducts {
    /// The Google Play products as the Play verdicts read them: one-time products by id,
    /// subscription base plans by product and base plan.
    public var playMap: PlayProductMap {
        var oneTime: [String: PlayGrant] = [:]
        var subscriptions: [String: [String: PlayGrant]] = [:]
        for p in of("google") {
            let grant = PlayGrant(badgeType: p.badgeType, months: p.months)
            switch (p.kind, p.basePlanId) {
            case (.subscription, let plan?): subscriptions[p.productId, default: [:]][plan] = grant
            case (.oneTime, nil): oneTime[p.productId] = grant
            default: continue  // refused by `catalog set-product`; never sold half-described
            }
        }
        return PlayProductMap(oneTime: oneTime, subscriptions: subscriptions)
    }
}

extension BadgeServiceError {
    /// The spec's class of a Play refusal; the reason goes to the log, never to the client.
    init(_ refusal: PlayRefusal) {
        self.init(refusal.verdict, retryAfter: refusal.retrySeconds, detail: "google: \(refusal.reason)")
    }
}
