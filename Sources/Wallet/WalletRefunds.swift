import BadgeCore
import Handlers
import Storage

/// The coin wallet as a listener of verified store refunds (`POST /webhooks/apple`,
/// `POST /webhooks/google`): a refunded or revoked coin purchase has its coins taken back by one
/// reversal row, inside the transaction that records the delivery, so a redelivery changes nothing.
public struct WalletRefunds: StoreNotificationListener {
    public init() {}

    public func apply(_ notice: StoreRefundNotice, in w: any StoreWriter, at now: Timestamp) throws -> String? {
        // Coin packs are consumables: a subscription's notice is never about them.
        guard notice.productKind == .oneTime else { return nil }
        // Every backend's write transaction holds both ledgers; one that does not is a build defect, said loudly.
        guard let wallet = w as? any WalletWriter else {
            throw StorageError.corrupt("the store's write transaction holds no coin ledger")
        }
        for (channel, reference) in Self.references(of: notice) {
            switch try WalletService.reverse(channel: channel, externalRef: reference, in: wallet, at: now) {
            case .reversed(let row): return "coin purchase reversed (\(-row.coins) coins)"
            case .alreadyReversed: return nil
            case .unknownPurchase: continue
            }
        }
        return nil
    }

    /// The references a coin purchase of the notice may have been credited under, in the order
    /// the purchase path chooses them: Apple's transaction id; Play's order id, else its token's digest.
    static func references(of notice: StoreRefundNotice) -> [(channel: String, reference: String)] {
        switch notice.store {
        case .apple:
            [("apple", notice.transactionId ?? notice.paymentReference)]
        case .google:
            [notice.orderId, CoinStores.playTokenReference(tokenSHA256: notice.paymentReference)]
                .compactMap { $0 }.filter { !$0.isEmpty }.map { ("google", $0) }
        }
    }
}
