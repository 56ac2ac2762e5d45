import BadgeCore
import Ledger

/// The storage the handlers use, kept small so a PostgreSQL backend can follow
/// (README, Storage). Writes happen in one transaction per command, after any
/// outside call has returned.
public protocol BadgeStore: Sendable {
    /// Runs `body` against a consistent snapshot.
    func read<T>(_ body: (any StoreReader) throws -> T) throws -> T
    /// Runs `body` in one transaction: all of its writes land, or none.
    func write<T>(_ body: (any StoreWriter) throws -> T) throws -> T
    /// Whether a write lands and a read succeeds now, or why not (for /readyz).
    func readiness() -> Readiness
    /// ``read(_:)`` when it needs no wait for a connection or the network (what an event loop
    /// may call); nil when it would. The default is nil: a store must promise this itself.
    func readWithoutWaiting<T>(_ body: (any StoreReader) throws -> T) throws -> T?
}

extension BadgeStore {
    public func readWithoutWaiting<T>(_ body: (any StoreReader) throws -> T) throws -> T? { nil }
}

/// Queries, inside a read or write transaction.
public protocol StoreReader {
    /// Every price, in creation order.
    func prices() throws -> [BadgePrice]
    /// Every offer, in creation order.
    func offers() throws -> [BadgeOffer]
    func purchase(key: String) throws -> PurchaseRecord?
    func purchase(id: Int64) throws -> PurchaseRecord?
    /// The purchase's ledger, oldest row first.
    func ledger(purchaseId: Int64) throws -> [LedgerEntry]
    /// The end of the purchase's ledger a statement answering an assertion of
    /// `assertedEntryId` needs (``LedgerTail/firstPosition(count:assertedPosition:completeHistoryLimit:)``),
    /// read by index: its cost follows the rows answered, not the history's length.
    func ledgerTail(purchaseId: Int64, asserting assertedEntryId: String?, completeHistoryLimit: Int) throws -> LedgerTail
    /// The issuance whose period ends last, if any.
    func latestIssuance(purchaseId: Int64) throws -> IssuanceRecord?
    /// What `issueBadge` reads of the purchase with key `purchaseKey`, or nil when there is none:
    /// the same as ``purchase(key:)``, ``subscriptionFunding(purchaseId:)`` and, unless a
    /// subscription funds it, ``ledgerTail(purchaseId:asserting:completeHistoryLimit:)``,
    /// ``latestIssuance(purchaseId:)`` and ``pausedSince(purchaseId:)`` together (on SQL one
    /// statement when the asserted entry is the tip, else two, where those took up to seven: issue 17).
    func issueView(purchaseKey: String, asserting assertedEntryId: String?, completeHistoryLimit: Int) throws -> IssueView?
    func code(hash: [UInt8]) throws -> CodeRecord?
    /// Every code, newest first.
    func codes() throws -> [CodeRecord]
    /// The purchases that redeemed the code.
    func redemptions(codeHash: [UInt8]) throws -> [Int64]
    func invoice(id: String) throws -> InvoiceRecord?
    /// The invoice a provider knows by `providerRef` (its session or invoice id).
    func invoice(provider: String, providerRef: String) throws -> InvoiceRecord?
    /// The invoice whose settled payment the provider knows by `paymentRef`.
    func invoice(provider: String, paymentRef: String) throws -> InvoiceRecord?
    /// A purchase key's invoices, newest first.
    func invoices(purchaseKey: String) throws -> [InvoiceRecord]
    /// The purchase a provider's payment was credited to, if it was.
    func creditedPurchase(provider: String, providerRef: String) throws -> Int64?
    /// Whether the provider took this payment or charge back (``StoreWriter/recordRefund(_:at:)``).
    func isRefunded(_ refund: ProviderRefund) throws -> Bool
    /// The subscription a store knows by `reference`, whether or not a purchase holds it.
    func subscription(store: String, reference: String) throws -> SubscriptionRecord?
    func subscription(id: Int64) throws -> SubscriptionRecord?
    /// The subscription that funds, or funded before it moved away, the purchase.
    func subscriptionFunding(purchaseId: Int64) throws -> SubscriptionFunding?
    /// The charges of a subscription this service recorded, oldest period first.
    func subscriptionCharges(subscriptionId: Int64) throws -> [SubscriptionChargeRecord]
    /// Every store product priced, by store, product and base plan.
    func storeProducts() throws -> [StoreProduct]
    /// When the purchase's pause started, or nil when it is not paused.
    func pausedSince(purchaseId: Int64) throws -> Timestamp?
    /// The purchase holding the recovery receipt with this SHA-256, if one does.
    func receiptHolder(hash: [UInt8]) throws -> Int64?
    /// The purchases a retired recovery receipt moved months from and to, if it was retired.
    func receiptTransfer(hash: [UInt8]) throws -> (from: Int64, to: Int64)?
    /// The purchase an upgrade invoice converts, and the months it credited, if it is one.
    func invoiceUpgrade(invoiceId: String) throws -> InvoiceUpgrade?
    /// The upgrade invoices converting the purchase, oldest first.
    func invoiceUpgrades(fromPurchaseId: Int64) throws -> [InvoiceUpgrade]
    /// How much of the provider's payment was refunded in part so far, if any was.
    func refundProgress(provider: String, paymentRef: String) throws -> RefundProgress?
    /// Whether a dispute of the provider's payment is open.
    func isDisputed(provider: String, paymentRef: String) throws -> Bool
    /// Whether a dispute is open of a payment that was credited to the purchase.
    func holdsOpenDispute(purchaseId: Int64) throws -> Bool
}

/// Changes, inside a write transaction.
public protocol StoreWriter: StoreReader {
    func insertPrice(_ price: BadgePrice) throws
    func insertOffer(_ offer: BadgeOffer) throws
    /// Sets a price's status; false when there is no such price.
    func setPriceStatus(priceId: String, _ status: ItemStatus) throws -> Bool
    /// Sets an offer's status; false when there is no such offer.
    func setOfferStatus(offerId: String, _ status: ItemStatus) throws -> Bool
    /// Records a new purchase; ``StorageError/conflict(constraint:)`` if the key is taken.
    func insertPurchase(key: String, masterKey: [UInt8], badgeType: BadgeType, at: Timestamp) throws -> PurchaseRecord
    /// Appends rows after the purchase's current tip, which must still have `expectedCount`
    /// rows: a conditional write, so two writers racing from the same tip cannot both land.
    func appendLedger(purchaseId: Int64, expectedCount: Int, entries: [LedgerEntry]) throws
    func insertIssuance(_ issuance: IssuanceRecord) throws
    func insertCode(_ code: CodeRecord) throws
    /// Marks a code revoked; false when there is no such code or it already was.
    func revokeCode(hash: [UInt8], at: Timestamp) throws -> Bool
    func insertRedemption(codeHash: [UInt8], purchaseId: Int64, at: Timestamp) throws
    /// Records an invoice; ``StorageError/conflict(constraint:)`` when the key already has an open one.
    func insertInvoice(_ invoice: InvoiceRecord) throws
    /// Moves an invoice from one of `from` to `to`, noting the payment when given; false when
    /// the invoice is in none of `from` (another delivery got there first).
    func setInvoiceStatus(invoiceId: String, from: Set<InvoiceStatus>, to: InvoiceStatus, paidAt: Timestamp?,
                          paymentRef: String?) throws -> Bool
    /// Records a provider event id; false when it was already recorded (a redelivery).
    func recordProviderEvent(provider: String, eventId: String, at: Timestamp) throws -> Bool
    /// Records that the provider took a payment or charge back before anything credited it, so
    /// no later credit does; false when it was recorded already (nothing changes).
    @discardableResult
    func recordRefund(_ refund: ProviderRefund, at: Timestamp) throws -> Bool
    /// Records how much of a payment was refunded so far (replacing what was recorded).
    func saveRefundProgress(_ progress: RefundProgress, at: Timestamp) throws
    /// Records a dispute of a payment as `status` (`open`, `won`, `lost`): an open one only when
    /// the dispute is not recorded yet, a closed one over an open one. False when nothing changed
    /// (a redelivery, or an opening after the close).
    func recordDispute(provider: String, disputeId: String, paymentRef: String, status: String, at: Timestamp) throws -> Bool
    /// Records that a provider's payment funded a purchase; unique by (provider, providerRef),
    /// so a payment is credited once.
    func insertPayment(paymentId: String, provider: String, providerRef: String, purchaseId: Int64, at: Timestamp) throws
    /// Stores the SHA-256 of a purchase's recovery receipt.
    func insertReceipt(hash: [UInt8], purchaseId: Int64) throws
    /// Sets the badge type a purchase is funded for (a grant of another type moves it).
    func setPurchaseBadgeType(purchaseId: Int64, _ badgeType: BadgeType) throws
    /// Records a subscription the store is about to be asked about; ``StorageError/conflict(constraint:)``
    /// when (store, reference) is already recorded.
    func insertSubscription(store: String, reference: String) throws -> SubscriptionRecord
    /// Writes every mutable field of `record` (found by its id).
    func updateSubscription(_ record: SubscriptionRecord) throws
    /// Records a charge; one already recorded is left as it is (false).
    func recordSubscriptionCharge(_ charge: SubscriptionChargeRecord) throws -> Bool
    /// Marks a recorded charge granted; false when it already was (a charge is granted once, ever).
    func grantSubscriptionCharge(subscriptionId: Int64, chargeId: String, at: Timestamp) throws -> Bool
    /// Records that the subscription funds the purchase.
    func insertSubscriptionFunding(_ funding: SubscriptionFunding) throws
    /// Records that the subscription moved away from the purchase; false when it already had.
    func markSubscriptionMovedAway(purchaseId: Int64, at: Timestamp) throws -> Bool
    /// Prices a store product, replacing what the same (store, product, base plan) granted before.
    func setStoreProduct(_ product: StoreProduct) throws
    /// Stops pricing a store product; false when it was not priced.
    func removeStoreProduct(store: String, productId: String, basePlanId: String?) throws -> Bool
    /// Pauses the purchase from `since` (nil: not paused), replacing any pause it had.
    func setPause(purchaseId: Int64, since: Timestamp?) throws
    /// Records that an invoice (already inserted) is an upgrade converting a purchase's months.
    func insertInvoiceUpgrade(_ upgrade: InvoiceUpgrade) throws
    /// Retires a recovery receipt held by `from` once it funded `to`: the receipt is no longer
    /// held, and the transfer is recorded; ``StorageError/conflict(constraint:)`` when `from`
    /// no longer holds it.
    func retireReceipt(hash: [UInt8], from: Int64, to: Int64, at: Timestamp) throws
}

extension StoreWriter {
    /// Ends the purchase's pause inside a conditional write: the pause must still be `expected`
    /// (nil: none), else ``StorageError/conflict(constraint:)`` so the pass is re-run.
    public func endPause(purchaseId: Int64, expected: Timestamp?) throws {
        guard try pausedSince(purchaseId: purchaseId) == expected else { throw StorageError.conflict(constraint: "pause changed") }
        if expected != nil { try setPause(purchaseId: purchaseId, since: nil) }
    }
}
