import BadgeCore
import Crypto
import Ledger
import Providers
import Schema
import Storage

extension BadgeService {
    /// How long an invoice stays open; Stripe accepts 30 minutes to 24 hours for a session.
    public static let invoiceLifetimeSeconds: Int64 = 3600
    /// `retryAfter` of provider_unavailable when a provider call fails.
    public static let providerRetrySeconds: UInt32 = 60

    /// `getBadgeInvoice`: prices the purchase (priceId pinned, offerId or one month), has the
    /// provider create its side, and records the invoice under the signing key. A repeat while
    /// the key's invoice is open answers that invoice again, without asking the provider.
    /// With `upgrade`, the price is net of the conversion credit for the old purchase's unissued
    /// months (`judgeUpgrade`), which the invoice's settlement debits as `upgrade`.
    func getBadgeInvoice(key: Ed25519PublicKey, priceId: String, offerId: String?, badgeInfo: BadgeInfo,
                         paymentVia: PaymentVia, upgrade: UpgradeProof?, now: Timestamp) throws -> RPCResponse {
        let purchaseKey = key.purchaseKeyText
        let method: PaymentMethod = switch paymentVia {
        case .card: .card
        case .crypto(.btc): .btc
        case .crypto(.xmr): .xmr
        }
        let snapshot = try store.read { r in
            (purchase: try r.purchase(key: purchaseKey), invoices: try r.invoices(purchaseKey: purchaseKey),
             prices: try r.prices(), offers: try r.offers())
        }
        if snapshot.purchase != nil {
            throw BadgeServiceError.badRequest("this purchase key already holds a badge; buy under a fresh key")
        }
        if let open = Self.openInvoice(snapshot.invoices, at: now) { return try invoiceResponse(open) }
        if snapshot.invoices.contains(where: { $0.status == .paid }) {
            throw BadgeServiceError.badRequest("this key's invoice is paid: send purchaseBadge funded by it")
        }
        var priced: PricedPurchase
        do {
            priced = try priceInvoice(priceId: priceId, offerId: offerId, badgeType: badgeInfo.badgeType,
                                      prices: snapshot.prices, offers: snapshot.offers)
        } catch { throw BadgeServiceError.pricing(error) }
        guard let provider = providers.provider(for: method) else {
            throw BadgeServiceError.providerNotConfigured(providers.section(for: method))
        }

        let invoiceId = newInvoiceId()
        let expiresAt = now.adding(seconds: Self.invoiceLifetimeSeconds)
        var conversion: UpgradeConversion?
        if let upgrade {
            // An invoice whose payment may still settle after it closes (a coin payment confirming
            // late) may be paid until its late window ends; the old key may be issued until then.
            let late = provider.lateSettlement
            let settleBy = late.afterClosing ? expiresAt.adding(seconds: late.seconds) : expiresAt
            let judged = try judgeUpgrade(upgrade, toPurchaseKey: purchaseKey, priced: priced, prices: snapshot.prices,
                                          settleBy: settleBy, now: now)
            priced.credit = judged.credit
            priced.amount = priced.price - priced.discount - judged.credit
            conversion = judged
        }
        let monthsText = priced.months == 1 ? "1 month" : "\(priced.months) months"
        let request = PaymentRequest(invoiceId: invoiceId, amount: priced.amount, currency: priced.currency, method: method,
                                     description: "SimpleX \(priced.badgeType) badge, \(monthsText)",
                                     createdAt: now, expiresAt: expiresAt)
        let destination: PaymentDestination
        do { destination = try provider.createPayment(request) } catch {
            throw Self.classify(error, provider: provider.name)
        }
        let record = InvoiceRecord(
            invoiceId: invoiceId, purchaseKey: purchaseKey, badgeType: priced.badgeType, months: priced.months,
            price: priced.price, discount: priced.discount, credit: priced.credit, amount: priced.amount,
            currency: priced.currency, priceId: priced.priceId, offerId: priced.offerId, provider: provider.name,
            method: method.rawValue, providerRef: destination.providerRef, paymentURL: destination.url,
            address: destination.address, cryptoAmount: destination.cryptoAmount, status: .open, createdAt: now,
            expiresAt: expiresAt)
        // Two identical requests at once may both reach the provider; one invoice is kept (one
        // open invoice per key is a unique index) and the other's provider side expires unused.
        for _ in 0..<Self.conditionalWriteAttempts {
            do {
                let kept = try store.write { w -> InvoiceRecord in
                    guard try w.purchase(key: purchaseKey) == nil else {
                        throw BadgeServiceError.badRequest("this purchase key already holds a badge; buy under a fresh key")
                    }
                    let invoices = try w.invoices(purchaseKey: purchaseKey)
                    if let open = Self.openInvoice(invoices, at: now) { return open }
                    // An expired invoice stops being the open one; a late settlement still finds it.
                    for stale in invoices where stale.status == .open {
                        _ = try w.setInvoiceStatus(invoiceId: stale.invoiceId, from: [.open], to: .closed, paidAt: nil,
                                                   paymentRef: nil)
                    }
                    try w.insertInvoice(record)
                    if let conversion {
                        // One upgrade of a purchase may be open at a time (judgeUpgrade), rechecked here.
                        if try Self.holdsPayableUpgrade(conversion.fromPurchaseId, in: w, at: now, providers: providers) {
                            throw BadgeServiceError.badRequest("another upgrade of this purchase is open")
                        }
                        // The provider was asked outside any transaction: the months the credit was
                        // priced on may have left meanwhile (a receipt transfer, a store upgrade, a refund).
                        // (A grant of another badge type debits `upgrade` naming the purchase's own key.)
                        let oldKey = try w.purchase(id: conversion.fromPurchaseId)?.purchaseKey
                        let oldRows = try w.ledger(purchaseId: conversion.fromPurchaseId)
                        if oldRows.filter({ $0.entryType == .debit(.refund) }).count > conversion.refundRows {
                            throw BadgeServiceError.receiptInvalid
                        }
                        for row in oldRows {
                            switch row.entryType {
                            case .debit(.transferOut): throw BadgeServiceError.receiptInvalid
                            case .debit(.upgrade(let to)) where to != oldKey: throw BadgeServiceError.receiptUsed
                            default: continue
                            }
                        }
                        try w.insertInvoiceUpgrade(InvoiceUpgrade(invoiceId: invoiceId, fromPurchaseId: conversion.fromPurchaseId,
                                                                  months: conversion.months))
                    }
                    return record
                }
                return try invoiceResponse(kept)
            } catch StorageError.conflict {
                continue
            }
        }
        throw BadgeServiceError.internal(detail: "recording an invoice conflicted \(Self.conditionalWriteAttempts) times")
    }

    /// The key's invoice still open at `now`, if any.
    static func openInvoice(_ invoices: [InvoiceRecord], at now: Timestamp) -> InvoiceRecord? {
        invoices.first { $0.status == .open && $0.expiresAt > now }
    }

    func invoiceResponse(_ record: InvoiceRecord) throws -> RPCResponse {
        let paymentTo: PaymentTo
        switch record.method {
        case "card":
            guard let url = record.paymentURL else { throw BadgeServiceError.internal(detail: "card invoice without url") }
            paymentTo = .card(provider: .stripe, url: url)
        case "btc", "xmr":
            guard let address = record.address, let amount = record.cryptoAmount else {
                throw BadgeServiceError.internal(detail: "crypto invoice without address")
            }
            paymentTo = .crypto(currency: record.method == "btc" ? .btc : .xmr, address: address, cryptoAmount: amount)
        default:
            throw BadgeServiceError.internal(detail: "invoice method \(record.method)")
        }
        let invoice = Invoice(invoiceId: record.invoiceId, price: record.price,
                              discount: record.discount > 0 ? record.discount : nil,
                              credit: record.credit > 0 ? record.credit : nil, amount: record.amount,
                              currency: record.currency, expiresAt: record.expiresAt, paymentTo: paymentTo)
        return .badgeInvoice(invoice: invoice, badgeType: record.badgeType, months: record.months)
    }

    /// A provider failure in the protocol's classes: its outage is provider_unavailable, its
    /// refusal of this service's own credentials internal (the operator must act).
    static func classify(_ error: PaymentProviderError, provider: String) -> BadgeServiceError {
        switch error {
        case .unavailable(let why): .providerUnavailable(retryAfter: providerRetrySeconds, detail: "\(provider): \(why)")
        case let .busy(why, after): .providerUnavailable(retryAfter: after, detail: "\(provider): \(why)")
        case .refused(let why): .internal(detail: "\(provider): \(why)")
        }
    }
}

/// Invoice ids: base64url (unpadded) of 16 random bytes, a bearer capability the providers echo.
public let randomInvoiceId: @Sendable () -> String = { Base64URL.encode(SecureRandom.bytes(16), padded: false) }
