import BadgeCore
import Crypto
import Ledger
import Schema
import Storage

extension BadgeService {
    /// How long after its expiry a crypto invoice may still be paid late: BTCPay monitors an
    /// invoice for a day by default, so until then a closed one answers payment_pending.
    public static let cryptoLateSeconds: Int64 = 86_400
    /// How long after its expiry an open card invoice may still settle: a session paid just before
    /// it expired is reported by a webhook Stripe retries for up to three days.
    public static let cardLateSeconds: Int64 = 3 * 86_400

    /// `purchaseBadge` funded by `invoice`: payment_pending until the provider's settlement
    /// lands; then, in one round trip, the purchase with its master key, the `payment {invoiceId}`
    /// credit, the first month issued and the recovery receipt (only its hash is stored).
    /// A repeat by the same key answers the same; the invoice of another key is receipt_used.
    func purchaseByInvoice(key: Ed25519PublicKey, masterKey: [UInt8], invoiceId: String, now: Timestamp) throws -> RPCResponse {
        let purchaseKey = key.purchaseKeyText
        return try conditionalWrite(read: { r in
            let invoice = try r.invoice(id: invoiceId)
            return (purchase: try r.purchase(key: purchaseKey), holdsInvoice: !(try r.invoices(purchaseKey: purchaseKey).isEmpty),
                    invoice: invoice,
                    creditedTo: try invoice.flatMap { try r.creditedPurchase(provider: $0.provider, providerRef: $0.invoiceId) })
        }, decide: { s in
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
            switch invoice.status {
            case .paid: break
            case .open:
                throw BadgeServiceError.paymentPending(retryAfter: Self.pendingRetry(until: invoice.expiresAt, now: now))
            case .closed where invoice.method != "card" && now < invoice.expiresAt.adding(seconds: Self.cryptoLateSeconds):
                // A coin payment may still confirm late; never tell a payer the purchase is dead too early.
                throw BadgeServiceError.paymentPending(retryAfter: 3600)
            case .closed, .refunded:
                throw BadgeServiceError.receiptInvalid
            }

            return try creditFirstPayment(purchaseKey: purchaseKey, masterKey: masterKey, months: invoice.months,
                                          badgeType: invoice.badgeType, invoiceId: invoiceId, provider: invoice.provider,
                                          providerRef: invoiceId, receiptSeed: invoiceId, what: "invoice", now: now,
                                          stillUnclaimed: { w in try w.invoice(id: invoiceId)?.status == .paid })
        })
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
