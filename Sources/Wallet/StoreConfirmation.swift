import AppStore
import BadgeCore
import Crypto
import GooglePlay
import Storage

/// A purchase a store confirmed server to server: what may be credited, and the store's own id
/// for it (the idempotency key's `<ref>`).
public struct ConfirmedCoinPurchase: Sendable, Equatable {
    /// `apple` or `google`.
    public let channel: String
    public let externalRef: String
    public let pack: CoinPack
    /// Packs bought at once (StoreKit's quantity; 1 on Play).
    public let quantity: Int64
    /// How a refund notice of this purchase is recorded when it comes before the purchase is
    /// presented: Apple's transaction id; for Play the SHA-256 of the token, as the badge path's.
    public let refund: ProviderRefund
    /// Sandbox: paid by nobody (App Review, TestFlight, a Play license tester), credited with gross and net 0.
    public let environment: CoinRow.Environment
    /// A Play purchase's token digest, by which the buyer's repeat is found before Play is asked.
    public let tokenSHA256: String?
}

/// The stores the wallet asks, each optional: an absent one answers provider_not_configured.
public struct CoinStores: Sendable {
    /// Get Transaction Info, with the App Store chain verification.
    public var appStore: AppStoreServerAPI?
    /// `purchases.products.get`.
    public var googlePlay: GooglePlayClient?
    /// Whether Play's license-tester purchases are credited (`[development] credit_test_purchases`).
    public var creditsTestPurchases: Bool
    /// Whether App Store Sandbox purchases are credited at all (`[wallet] sandbox`): the design's
    /// fallthrough lets App Review buy, and TestFlight testers too; off refuses them test_purchase.
    public var creditsSandbox: Bool
    /// Whether a store record without the buyer's account token is refused (`[wallet] require_account_binding`).
    public var requiresAccountBinding: Bool

    public init(appStore: AppStoreServerAPI? = nil, googlePlay: GooglePlayClient? = nil, creditsTestPurchases: Bool = false,
                creditsSandbox: Bool = true, requiresAccountBinding: Bool = false) {
        self.appStore = appStore
        self.googlePlay = googlePlay
        self.creditsTestPurchases = creditsTestPurchases
        self.creditsSandbox = creditsSandbox
        self.requiresAccountBinding = requiresAccountBinding
    }

    /// Asks Apple about the transaction `signedTransaction` names and judges Apple's own record:
    /// the client's JWS is read unverified, only for its transaction id.
    func confirmApple(signedTransaction: String, pack named: CoinPack, packs: CoinPackTable, account: String,
                      now: Timestamp) throws(WalletRefusal) -> ConfirmedCoinPurchase {
        guard let appStore else { throw WalletRefusal(.providerNotConfigured, "the App Store Server API is not configured") }
        let transactionId: String
        do { transactionId = try AppStoreClaim.read(signedTransaction).transactionId } catch {
            throw WalletRefusal(.receiptInvalid, "the signed transaction cannot be read: \(error.reason)")
        }
        switch appStore.transactionInfo(transactionId: transactionId, now: now) {
        case .unavailable(let reason, let retryAfter):
            throw WalletRefusal(.providerUnavailable, reason, retryAfter: UInt32(clamping: retryAfter ?? 60))
        case .refused(let refusal):
            throw WalletRefusal(store: refusal.answer, refusal.reason)
        case .read(let transaction, _):
            let confirmed = try Self.judge(transaction, named: named, packs: packs)
            if confirmed.environment == .sandbox && !creditsSandbox {
                throw WalletRefusal(.testPurchase, "a Sandbox purchase and [wallet] sandbox is off")
            }
            try AccountBinding.check(transaction.appAccountToken, account: account, required: requiresAccountBinding, field: "appAccountToken")
            return confirmed
        }
    }

    /// The checks on Apple's record: a consumable, of a known pack that is the pack the client
    /// named, not refunded or revoked.
    static func judge(_ transaction: AppStoreTransaction, named: CoinPack,
                      packs: CoinPackTable) throws(WalletRefusal) -> ConfirmedCoinPurchase {
        guard transaction.kind == .consumable else { throw WalletRefusal(.receiptInvalid, "the transaction is not a consumable") }
        // Apple's record of a real purchase, of another product than the pack named (a pack the
        // app sells and this table does not list yet, a badge): not the named pack, and not forged.
        guard let pack = packs.pack(appStoreProductId: transaction.productId) else {
            throw WalletRefusal(.packMismatch, "the transaction is for a product that is no coin pack of this table")
        }
        guard pack.packId == named.packId else {
            throw WalletRefusal(.packMismatch, "the transaction is for pack \(pack.packId), not \(named.packId)")
        }
        guard transaction.revocationDate == nil else { throw WalletRefusal(.receiptInvalid, "the transaction was refunded or revoked") }
        guard (1...100).contains(transaction.quantity) else {
            throw WalletRefusal(.receiptInvalid, "the transaction's quantity \(transaction.quantity) is not in 1...100")
        }
        return ConfirmedCoinPurchase(channel: "apple", externalRef: transaction.transactionId, pack: pack,
                                     quantity: Int64(transaction.quantity),
                                     refund: ProviderRefund(provider: "apple", kind: .payment, reference: transaction.transactionId),
                                     environment: transaction.environment == .sandbox ? .sandbox : .production, tokenSHA256: nil)
    }

    /// Asks Play about `purchaseToken` with the named pack's own product id in the URL: a token
    /// bought for another pack is not Play's purchase of this one.
    func confirmGoogle(purchaseToken: String, pack: CoinPack, account: String) throws(WalletRefusal) -> ConfirmedCoinPurchase {
        guard let googlePlay else { throw WalletRefusal(.providerNotConfigured, "Google Play is not configured") }
        let purchase: PlayOneTimePurchase
        do {
            purchase = try googlePlay.readOneTime(productID: pack.playProductId, token: purchaseToken, creditsTest: creditsTestPurchases)
        } catch {
            throw WalletRefusal(store: error.verdict, error.reason, retryAfter: error.retrySeconds)
        }
        try AccountBinding.check(purchase.obfuscatedExternalAccountId, account: account, required: requiresAccountBinding,
                                 field: "obfuscatedExternalAccountId")
        let tokenDigest = Self.playTokenDigest(purchaseToken)
        // A license tester's purchase (credited only with [development] credit_test_purchases) is paid by nobody.
        return ConfirmedCoinPurchase(channel: "google", externalRef: Self.playReference(orderId: purchase.orderID, token: purchaseToken),
                                     pack: pack, quantity: 1,
                                     refund: ProviderRefund(provider: "google", kind: .payment, reference: tokenDigest),
                                     environment: purchase.isTest ? .sandbox : .production, tokenSHA256: tokenDigest)
    }

    /// The Play order id; a purchase without one (a promo code's) is known by the SHA-256 of
    /// its token (unpadded base64url, as the badge path's Play payments are), so the token
    /// itself is never stored.
    public static func playReference(orderId: String?, token: String) -> String {
        if let orderId, !orderId.isEmpty { return orderId }
        return playTokenReference(tokenSHA256: playTokenDigest(token))
    }

    /// The SHA-256 of a Play token, unpadded base64url: how a purchase without an order id is
    /// known, and how refund notices record a purchase (as the badge path's Play payments).
    static func playTokenDigest(_ token: String) -> String {
        Base64URL.encode(SHA256.hash(Array(token.utf8)), padded: false)
    }

    /// The reference of a Play purchase without an order id, from its token's digest.
    public static func playTokenReference(tokenSHA256: String) -> String { "token-sha256:" + tokenSHA256 }

}
