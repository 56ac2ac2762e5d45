import BadgeCore
import Crypto
import Ledger
import Schema
import Storage

extension BadgeService {
    /// A new purchase funded by one verified payment (a settled invoice, an App Store or Play
    /// one-time purchase): the `payment` credit and the first month planned and signed, answered
    /// with the recovery receipt derived from `receiptSeed`. The write records the purchase, its
    /// rows, the issuance, the payment (unique by provider and reference, so it funds one
    /// purchase) and the receipt's hash, and lands only while `stillUnclaimed` holds. A store
    /// one-time upgrade writes the debit of the purchase it replaces in the same transaction; a
    /// payment `partlyRefunded` before its credit has the refunded share debited `refund` after the
    /// first month.
    func creditFirstPayment(purchaseKey: String, masterKey: [UInt8], months: Int, badgeType: BadgeType,
                            invoiceId: String?, provider: String, providerRef: String, receiptSeed: String,
                            what: String, now: Timestamp, upgrading: StoreUpgradeDebit? = nil,
                            partlyRefunded: RefundProgress? = nil,
                            stillUnclaimed: @escaping (any StoreWriter) throws -> Bool) throws -> StagedAnswer<RPCResponse> {
        var plan: LedgerPlan
        let owed = partlyRefunded.map { monthsRefunded(months: months, refunded: $0.refunded, of: $0.amount) } ?? 0
        do {
            plan = try planFirstFunding(months: months, credit: .payment(invoiceId: invoiceId), badgeType: badgeType,
                                        now: now, newId: newEntryId)
            // A partial refund that came before the credit takes its months from those left unissued.
            let taken = min(max(0, owed - (partlyRefunded?.monthsDebited ?? 0)), plan.tip.balanceMonths)
            if taken > 0 {
                let debit = try plan.tip.debit(.refund, months: taken, at: plan.tip.createdAt, newId: newEntryId)
                plan = LedgerPlan(rows: plan.rows + [debit], issued: plan.issued, tip: debit)
            }
        } catch {
            throw BadgeServiceError.internal(detail: "planning the \(what) credit: \(error)")
        }
        guard let period = plan.issued else { throw BadgeServiceError.internal(detail: "first funding issued nothing") }
        let credential = try sign(masterKey: masterKey, period: period)
        let receipt = Self.recoveryReceipt(masterKey: masterKey, invoiceId: receiptSeed)
        let response = RPCResponse.badgeCredential(credential: credential, statement: Statement(entries: plan.rows),
                                                   receipt: receipt, subscription: nil)
        return .answer(response) { w in
            guard try w.purchase(key: purchaseKey) == nil, try stillUnclaimed(w),
                  try w.creditedPurchase(provider: provider, providerRef: providerRef) == nil
            else { throw StorageError.conflict(constraint: "\(what) credit raced") }
            let purchase = try w.insertPurchase(key: purchaseKey, masterKey: masterKey, badgeType: badgeType, at: now)
            try w.appendLedger(purchaseId: purchase.id, expectedCount: 0, entries: plan.rows)
            try w.insertIssuance(IssuanceRecord(period: period, purchaseId: purchase.id, credential: credential))
            try w.insertPayment(paymentId: randomEntryId(), provider: provider, providerRef: providerRef,
                                purchaseId: purchase.id, at: now)
            try w.insertReceipt(hash: SHA256.hash(Array(receipt.utf8)), purchaseId: purchase.id)
            try upgrading?.write(w)
            if var progress = partlyRefunded {
                // A refund of more since the read debits more: the pass is re-run.
                guard try w.refundProgress(provider: progress.provider, paymentRef: progress.paymentRef) == progress else {
                    throw StorageError.conflict(constraint: "\(what) refunded in part meanwhile")
                }
                progress.monthsDebited = max(owed, progress.monthsDebited)
                try w.saveRefundProgress(progress, at: now)
            }
        }
    }
}
