import BadgeCore
import Crypto
import Ledger
import Providers
import RequestAuth
import Schema
import Storage

/// What a store one-time upgrade writes on the purchase whose badge proved it eligible: its
/// `upgrade {toPurchaseKey}` debit, conditional on its ledger being unchanged, and its pause ended.
struct StoreUpgradeDebit {
    let fromPurchaseId: Int64
    let expectedCount: Int
    let rows: [LedgerEntry]
    let pausedSince: Timestamp?
    /// The key the months go to, and the time judged: an upgrade invoice of another key opened
    /// since the judgement (it writes nothing on the old ledger) holds the months it priced.
    let toPurchaseKey: String
    let judgedAt: Timestamp
    /// Whose invoices may settle how late.
    let providers: ProviderRegistry

    func write(_ w: any StoreWriter) throws {
        if try BadgeService.holdsPayableUpgrade(fromPurchaseId, exceptFor: toPurchaseKey, in: w, at: judgedAt, providers: providers) {
            throw StorageError.conflict(constraint: "an upgrade invoice of the purchase opened meanwhile")
        }
        try w.appendLedger(purchaseId: fromPurchaseId, expectedCount: expectedCount, entries: rows)
        try w.endPause(purchaseId: fromPurchaseId, expected: pausedSince)
    }
}

extension BadgeService {
    /// Judges purchaseBadge.upgrade for an upgrade SKU of `product` (docs/protocol.md, Upgrades,
    /// Store one-time), before the store is asked: `receiptSignature` by the old key binds the old
    /// purchase's current recovery receipt to the signing key, and that purchase holds an unexpired
    /// badge of a cheaper type (its catalog month price below the SKU's type's). The store cannot
    /// gate who buys the SKU, so a proof that fails is a verdict no retry changes: receipt_invalid.
    /// An old purchase already converted into another key is receipt_used. The old purchase is
    /// replaced: its unissued months (after a lapse) are debited `upgrade`, even none.
    func judgeStoreUpgrade(_ proof: UpgradeProof, toPurchaseKey: String, product: StoreProduct,
                           now: Timestamp) throws -> StoreUpgradeDebit {
        guard let fromKey = PurchaseKey.parse(proof.fromPurchaseKey) else { throw BadgeServiceError.receiptInvalid }
        let fromPurchaseKey = fromKey.purchaseKeyText
        let message = UpgradeProof.signedMessage(fromPurchaseKey: fromPurchaseKey, toPurchaseKey: toPurchaseKey,
                                                 receipt: proof.receipt)
        guard fromPurchaseKey != toPurchaseKey, fromKey.isValidSignature(proof.receiptSignature, for: message) else {
            throw BadgeServiceError.receiptInvalid
        }
        let hash = SHA256.hash(Array(proof.receipt.utf8))
        return try store.read { r in
            guard let old = try r.purchase(key: fromPurchaseKey), try r.receiptHolder(hash: hash) == old.id else {
                throw BadgeServiceError.receiptInvalid
            }
            let rows = try r.ledger(purchaseId: old.id)
            if rows.contains(where: { if case .debit(.upgrade(let to)) = $0.entryType { to != fromPurchaseKey } else { false } }) {
                throw BadgeServiceError.receiptUsed
            }
            // A store subscription changes tier in the store, and keeps charging its own purchase.
            if try r.subscriptionFunding(purchaseId: old.id) != nil { throw BadgeServiceError.receiptInvalid }
            // The months an upgrade invoice of another key priced its credit on stay until it settles
            // or can no longer (docs/protocol.md, Upgrades), as for the invoice path and receipts.
            if try Self.holdsPayableUpgrade(old.id, exceptFor: toPurchaseKey, in: r, at: now, providers: providers) {
                throw BadgeServiceError.badRequest("an upgrade invoice of this purchase is open")
            }
            let prices = try r.prices()
            func monthPrice(_ type: BadgeType) -> UInt32? {
                prices.first { $0.badgeType == type && $0.status == .active }?.monthPrice
            }
            guard let latest = try r.latestIssuance(purchaseId: old.id), latest.expiry > now,
                  let held = monthPrice(latest.badgeType), let wanted = monthPrice(product.badgeType), held < wanted
            else { throw BadgeServiceError.receiptInvalid }
            let tip = rows.last ?? .emptyEntry(at: old.createdAt, badgeType: old.badgeType)
            let pausedSince = try r.pausedSince(purchaseId: old.id)
            let debit: [LedgerEntry]
            do {
                debit = try planUpgradeDebit(from: tip, months: LedgerEntry.maxChangeMonths, toPurchaseKey: toPurchaseKey,
                                             at: now, pausedSince: pausedSince, newId: newEntryId)
            } catch {
                throw BadgeServiceError.internal(detail: "planning an upgrade debit: \(error)")
            }
            return StoreUpgradeDebit(fromPurchaseId: old.id, expectedCount: rows.count, rows: debit, pausedSince: pausedSince,
                                     toPurchaseKey: toPurchaseKey, judgedAt: now, providers: providers)
        }
    }

    /// The upgrade proof and the product must come together: an upgrade SKU only with the proof,
    /// the proof only with an upgrade SKU (bad_request: a client that sends either alone is wrong).
    func checkUpgradePairing(_ proof: UpgradeProof?, product: StoreProduct) throws {
        switch (proof != nil, product.kind == .upgrade) {
        case (true, false): throw BadgeServiceError.badRequest("upgrade goes with an upgrade product")
        case (false, true): throw BadgeServiceError.badRequest("an upgrade product needs upgrade, the proof of the badge it upgrades")
        default: break
        }
    }
}
