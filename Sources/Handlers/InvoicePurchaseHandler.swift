import BadgeCore
import Crypto
import Ledger
import Providers
import Schema
import Storage

extension BadgeService {
    /// `purchaseBadge` funded by `invoice`: payment_pending until the provider's settlement
    /// lands; then, in one round trip, the purchase with its master key, the `payment {invoiceId}`
    /// credit, the first month issued and the recovery receipt (only its hash is stored).
    /// A repeat by the same key answers the same; the invoice of another key is receipt_used.
    func purchaseByInvoice(key: Ed25519PublicKey, masterKey: [UInt8], invoiceId: String, now: Timestamp) throws -> RPCResponse {
        let purchaseKey = key.purchaseKeyText
        let asked = try askProviderAboutLateInvoice(invoiceId, purchaseKey: purchaseKey, now: now)
        // Other paid invoices of the key, once this one is credited: payments never to be credited.
        var strandedNow: [InvoiceRecord] = []
        let answer = try conditionalWrite(read: { r in
            let invoice = try r.invoice(id: invoiceId)
            let invoices = try r.invoices(purchaseKey: purchaseKey)
            return (purchase: try r.purchase(key: purchaseKey), holdsInvoice: !invoices.isEmpty,
                    otherPaid: invoices.filter { $0.status == .paid && $0.invoiceId != invoiceId }, invoice: invoice,
                    creditedTo: try invoice.flatMap { try r.creditedPurchase(provider: $0.provider, providerRef: $0.invoiceId) },
                    disputed: try invoice.flatMap { i in try i.paymentRef.map { try r.isDisputed(provider: i.provider, paymentRef: $0) } } ?? false,
                    partlyRefunded: try invoice.flatMap { i in try i.paymentRef.flatMap { try r.refundProgress(provider: i.provider, paymentRef: $0) } })
        }, decide: { s in
            strandedNow = []
            // Only getBadgeInvoice makes the record an invoice belongs to (spec, Identity).
            guard s.purchase != nil || s.holdsInvoice else { throw BadgeServiceError.unknownPurchaseKey }
            guard let invoice = s.invoice else { throw BadgeServiceError.receiptInvalid }
            guard invoice.purchaseKey == purchaseKey else { throw BadgeServiceError.receiptUsed }
            if let purchase = s.purchase {
                guard s.creditedTo == purchase.id else {
                    throw BadgeServiceError.badRequest("this purchase key already holds a badge")
                }
                return .answer(try replay(purchase, receipt: Self.recoveryReceipt(masterKey: purchase.masterKey,
                                                                                invoiceId: invoiceId)))
            }
            let late = providers.lateSettlement(of: invoice.provider)
            switch invoice.status {
            case .paid: break
            case .open where now < invoice.expiresAt || !late.afterClosing:
                throw BadgeServiceError.paymentPending(retryAfter: Self.pendingRetry(until: invoice.expiresAt, now: now))
            case .open, .closed:
                // A coin payment may still confirm late: dead only once its provider says so for good.
                guard late.afterClosing else { throw BadgeServiceError.receiptInvalid }
                if let end = Self.latePaymentEnd(invoice, late: late, asked: asked), now >= end {
                    throw BadgeServiceError.receiptInvalid
                }
                // An open one is still watched (perhaps confirming): asked again sooner.
                throw BadgeServiceError.paymentPending(retryAfter: invoice.status == .open ? 60 : 3600)
            case .refunded:
                throw BadgeServiceError.receiptInvalid
            }
            // A disputed payment is credited once its dispute is won (lost, it is refunded).
            if s.disputed { throw BadgeServiceError.paymentPending(retryAfter: Self.disputeRetrySeconds) }

            let staged = try creditFirstPayment(purchaseKey: purchaseKey, masterKey: masterKey, months: invoice.months,
                                                badgeType: invoice.badgeType, invoiceId: invoiceId, provider: invoice.provider,
                                                providerRef: invoiceId, receiptSeed: invoiceId, what: "invoice", now: now,
                                                partlyRefunded: s.partlyRefunded,
                                                stillUnclaimed: { w in
                try w.invoice(id: invoiceId)?.status == .paid
                    && !(try invoice.paymentRef.map { try w.isDisputed(provider: invoice.provider, paymentRef: $0) } ?? false)
            })
            if staged.write != nil { strandedNow = s.otherPaid }
            return staged
        })
        for other in strandedNow {
            reportUncredited(.applied(Self.strandedSettlement), provider: other.provider, reference: other.providerRef)
        }
        return answer
    }

    /// The provider's own word on an invoice of `purchaseKey` that is unpaid past its expiry,
    /// when its provider reads invoices afresh (BTCPay), applied as its webhook would apply it:
    /// BTCPay redelivers a lost webhook for about an hour only, so without this a payment settled
    /// later would never be credited. Nil when nothing was asked (not such an invoice, the key
    /// already holds its badge, its provider not configured or not one that reads). A failed read
    /// past the late window is provider_unavailable; within it the record's answer stands.
    private func askProviderAboutLateInvoice(_ invoiceId: String, purchaseKey: String,
                                             now: Timestamp) throws -> ProviderInvoiceState? {
        let late = try store.read { r -> InvoiceRecord? in
            guard let invoice = try r.invoice(id: invoiceId), providers.invoiceStates(of: invoice.provider) != nil,
                  invoice.purchaseKey == purchaseKey, invoice.status == .closed || (invoice.status == .open && now >= invoice.expiresAt),
                  try r.purchase(key: purchaseKey) == nil
            else { return nil }
            return invoice
        }
        guard let invoice = late, let reader = providers.invoiceStates(of: invoice.provider) else { return nil }
        let state: ProviderInvoiceState
        do { state = try reader.invoiceState(providerRef: invoice.providerRef) } catch {
            configuration.reportProviderFailure("\(invoice.provider): reading a late invoice for purchaseBadge: \(error)")
            if now < invoice.expiresAt.adding(seconds: providers.lateSettlement(of: invoice.provider).seconds) { return nil }
            throw BadgeServiceError.providerUnavailable(retryAfter: 60, detail: "\(error)")
        }
        let change = state.change(providerRef: invoice.providerRef)
        let outcome = try store.write { w in try apply(change, from: invoice.provider, in: w, at: now) }
        reportUncredited(outcome, provider: invoice.provider, reference: invoice.providerRef)
        return state
    }

    /// When an unpaid invoice that may settle after it closes is dead for certain: at once when
    /// its provider calls it invalid; when it calls it expired, once its watch for a late payment
    /// ends (as the provider states it, else the late window); when the provider was not asked
    /// (none is configured), at the end of the late window for one its webhook closed. Nil: not
    /// known (the provider still watches it as new or processing, or nobody can say).
    static func latePaymentEnd(_ invoice: InvoiceRecord, late: LateSettlement, asked: ProviderInvoiceState?) -> Timestamp? {
        let window = invoice.expiresAt.adding(seconds: late.seconds)
        switch asked {
        case .failed: return invoice.createdAt
        case .expired(_, let monitoredUntil): return monitoredUntil ?? window
        case .pending, .settled: return nil
        case nil: return invoice.status == .closed ? window : nil
        }
    }

    /// The recovery receipt of an invoice purchase: derived from the purchase's master key and the
    /// invoice id, so a repeated request answers the same receipt while only its hash is stored.
    static func recoveryReceipt(masterKey: [UInt8], invoiceId: String) -> String {
        Base64URL.encode(HMACSHA256.authenticate(Array("badge-service recovery receipt\u{0}\(invoiceId)".utf8), key: masterKey))
    }

    /// Seconds to wait for a settlement: a minute, never past the invoice's expiry plus a minute.
    static func pendingRetry(until expiresAt: Timestamp, now: Timestamp) -> UInt32 {
        UInt32(clamping: max(10, min(60, expiresAt.seconds - now.seconds + 60)))
    }
}
