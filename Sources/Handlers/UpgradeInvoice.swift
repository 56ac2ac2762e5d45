import BadgeCore
import Crypto
import Ledger
import RequestAuth
import Schema
import Providers
import Storage

/// What an upgrade invoice converts: the old purchase, the months credited and the credit.
struct UpgradeConversion {
    let fromPurchaseId: Int64
    let months: Int
    let credit: UInt32
    /// The old purchase's `refund` rows when judged: one more by the write means months left
    /// meanwhile (a partial refund).
    let refundRows: Int
}

extension BadgeService {
    /// Judges getBadgeInvoice.upgrade (docs/protocol.md, Upgrades): the old purchase is the one its
    /// receipt belongs to, `receiptSignature` by the old key binds that receipt to the signing key,
    /// and the credit is the share of what the old purchase's invoice was paid for its months no
    /// issuance can reach before this invoice settles (by `settleBy`). Refusals: receipt_invalid
    /// for a proof that does not verify (unknown key, signature, receipt, refunded purchase);
    /// bad_request for what no retry changes (a store subscription, a purchase no invoice paid,
    /// not a dearer badge, nothing left to convert, another upgrade of it open).
    func judgeUpgrade(_ proof: UpgradeProof, toPurchaseKey: String, priced: PricedPurchase, prices: [BadgePrice],
                      settleBy: Timestamp, now: Timestamp) throws -> UpgradeConversion {
        guard let fromKey = PurchaseKey.parse(proof.fromPurchaseKey) else { throw BadgeServiceError.receiptInvalid }
        let fromPurchaseKey = fromKey.purchaseKeyText
        guard fromPurchaseKey != toPurchaseKey else {
            throw BadgeServiceError.badRequest("an upgrade is a new purchase under a new key")
        }
        let message = UpgradeProof.signedMessage(fromPurchaseKey: fromPurchaseKey, toPurchaseKey: toPurchaseKey,
                                                 receipt: proof.receipt)
        guard fromKey.isValidSignature(proof.receiptSignature, for: message) else { throw BadgeServiceError.receiptInvalid }
        let hash = SHA256.hash(Array(proof.receipt.utf8))
        return try store.read { r in
            guard let old = try r.purchase(key: fromPurchaseKey), try r.receiptHolder(hash: hash) == old.id else {
                throw BadgeServiceError.receiptInvalid
            }
            if try r.subscriptionFunding(purchaseId: old.id) != nil {
                throw BadgeServiceError.badRequest("a store subscription changes tier in the store")
            }
            let rows = try r.ledger(purchaseId: old.id)
            // receipt_invalid covers refunded receipts: the refund already took the months.
            if rows.contains(where: Self.isEmptyingRefund) { throw BadgeServiceError.receiptInvalid }
            // A disputed purchase's months are not converted until the dispute closes.
            if try isHeld(purchaseId: old.id, in: r) { throw BadgeServiceError.paymentPending(retryAfter: Self.disputeRetrySeconds) }
            guard let paid = try fundingInvoice(r, of: old) else {
                throw BadgeServiceError.badRequest("only a purchase paid by invoice converts by invoice")
            }
            guard paid.currency.lowercased() == priced.currency.lowercased() else {
                throw BadgeServiceError.badRequest("the upgrade is priced in another currency than the purchase it converts")
            }
            let tip = rows.last ?? .emptyEntry(at: old.createdAt, badgeType: old.badgeType)
            let newMonthPrice = prices.first { $0.priceId == priced.priceId }.map { UInt64($0.monthPrice) } ?? 0
            let oldMonthPrice = UInt64(paid.price) / UInt64(max(paid.months, 1))
            guard priced.badgeType != tip.balanceBadgeType, newMonthPrice > oldMonthPrice else {
                throw BadgeServiceError.badRequest("an upgrade is to a dearer badge")
            }
            if try Self.holdsPayableUpgrade(old.id, exceptFor: toPurchaseKey, in: r, at: now, providers: providers) {
                throw BadgeServiceError.badRequest("another upgrade of this purchase is open")
            }
            // This key's own expired coin invoice of it may still be paid late; a second invoice
            // beside it could settle too. Refused before the provider is asked, until it cannot.
            if let lateUntil = try Self.ownLateUpgradeEnd(old.id, of: toPurchaseKey, in: r, at: now, providers: providers) {
                throw BadgeServiceError.paymentPending(retryAfter: UInt32(clamping: min(3600, max(60, lateUntil.seconds - now.seconds))))
            }
            let months = convertibleMonths(from: tip, pausedSince: try r.pausedSince(purchaseId: old.id), at: now,
                                           settleBy: settleBy)
            guard months > 0 else { throw BadgeServiceError.badRequest("the purchase holds no months to convert") }
            let credit = conversionCredit(months: months, paid: paid.price - paid.discount, boughtMonths: paid.months)
            guard credit < priced.price - priced.discount else {
                throw BadgeServiceError.badRequest("the upgrade credit covers this duration: choose a longer one")
            }
            return UpgradeConversion(fromPurchaseId: old.id, months: months, credit: credit,
                                     refundRows: rows.filter { $0.entryType == .debit(.refund) }.count)
        }
    }

    /// The invoice that paid for a purchase's months: its first credit's, following months moved
    /// in by a recovery receipt back to the purchase they came from; nil for codes and stores.
    func fundingInvoice(_ r: any StoreReader, of purchase: PurchaseRecord) throws -> InvoiceRecord? {
        var current = purchase
        for _ in 0..<16 {
            switch try r.ledger(purchaseId: current.id).first?.entryType {
            case .credit(.payment(let invoiceId?))?:
                return try r.invoice(id: invoiceId)
            case .credit(.transferIn(let fromKey))?:
                guard let source = try r.purchase(key: fromKey) else { return nil }
                current = source
            default:
                return nil
            }
        }
        return nil
    }

    /// Whether an upgrade invoice converting purchase `purchaseId` (other than one of `key`) may
    /// still settle at `now`: while one may, it holds the months its credit was priced on.
    static func holdsPayableUpgrade(_ purchaseId: Int64, exceptFor key: String? = nil, in r: any StoreReader,
                                    at now: Timestamp, providers: ProviderRegistry) throws -> Bool {
        for upgrade in try r.invoiceUpgrades(fromPurchaseId: purchaseId) {
            if let invoice = try r.invoice(id: upgrade.invoiceId), invoice.purchaseKey != key,
               mayStillSettle(invoice, at: now, late: providers.lateSettlement(of: invoice.provider)) {
                return true
            }
        }
        return false
    }

    /// The end of the late window of `key`'s own expired invoice upgrading purchase `purchaseId`
    /// that may still settle at `now` after it closed (a coin invoice), if any. (Its open
    /// unexpired one is answered again before this is asked; a closed card one can no longer settle.)
    static func ownLateUpgradeEnd(_ purchaseId: Int64, of key: String, in r: any StoreReader,
                                  at now: Timestamp, providers: ProviderRegistry) throws -> Timestamp? {
        for upgrade in try r.invoiceUpgrades(fromPurchaseId: purchaseId) {
            guard let invoice = try r.invoice(id: upgrade.invoiceId), invoice.purchaseKey == key else { continue }
            let late = providers.lateSettlement(of: invoice.provider)
            guard late.afterClosing, mayStillSettle(invoice, at: now, late: late) else { continue }
            return invoice.expiresAt.adding(seconds: late.seconds)
        }
        return nil
    }

    /// Whether an invoice can still settle at `now`, its provider settling as late as `late`: an
    /// open one until its late window ends (a card session's webhook retried, a coin payment
    /// confirming late), and a closed one while a late payment may still confirm (a coin invoice).
    static func mayStillSettle(_ invoice: InvoiceRecord, at now: Timestamp, late: LateSettlement) -> Bool {
        switch invoice.status {
        case .open: now < invoice.expiresAt.adding(seconds: late.seconds)
        case .closed: late.afterClosing && now < invoice.expiresAt.adding(seconds: late.seconds)
        case .paid, .refunded: false
        }
    }

    /// At an upgrade invoice's settlement, inside its transaction: the old purchase is debited
    /// `upgrade {toPurchaseKey}` of the months the invoice credited, or of what remains when a
    /// refund took them meanwhile (docs/protocol.md, Upgrades). A pause goes on from the debit
    /// while months remain, and ends when none does. Returns a note for the log; nil for an
    /// invoice that converts nothing.
    func applyUpgrade(_ invoice: InvoiceRecord, in w: any StoreWriter, at now: Timestamp) throws -> String? {
        guard let upgrade = try w.invoiceUpgrade(invoiceId: invoice.invoiceId) else { return nil }
        guard let old = try w.purchase(id: upgrade.fromPurchaseId) else { throw StorageError.corrupt("upgrade of no purchase") }
        let rows = try w.ledger(purchaseId: old.id)
        let tip = rows.last ?? .emptyEntry(at: old.createdAt, badgeType: old.badgeType)
        let pausedSince = try w.pausedSince(purchaseId: old.id)
        let debits = try planUpgradeDebit(from: tip, months: upgrade.months, toPurchaseKey: invoice.purchaseKey, at: now,
                                          pausedSince: pausedSince, newId: newEntryId)
        try w.appendLedger(purchaseId: old.id, expectedCount: rows.count, entries: debits)
        if pausedSince != nil {
            let last = debits[debits.count - 1]
            try w.setPause(purchaseId: old.id, since: last.balanceMonths > 0 ? last.createdAt : nil)
        }
        let debited = -debits[debits.count - 1].changeMonths
        return debited == upgrade.months ? "upgrade debited \(debited) months"
            : "upgrade debited \(debited) of the \(upgrade.months) months credited"
    }
}
