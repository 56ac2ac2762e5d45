import BadgeCore
import Ledger
import Providers
import Storage

/// What a verified webhook delivery did; the gateway answers 200 to all but `retryLater`.
public enum SettlementOutcome: Hashable, Sendable {
    /// The delivery changed an invoice or a ledger (`what` names it, for the log).
    case applied(String)
    /// The event was already handled: nothing changes.
    case duplicate
    /// Verified but settles nothing (an unknown invoice, a wrong amount, an event we do not use).
    case ignored(String)
    /// Nothing was recorded and the provider should deliver again (its API or our database failed).
    case retryLater(String)

    /// The label for logs and metrics.
    public var result: String {
        switch self {
        case .applied: "applied"
        case .duplicate: "duplicate"
        case .ignored: "ignored"
        case .retryLater: "retry_later"
        }
    }
}

extension BadgeService {
    /// Applies a verified delivery of `provider` once (deduplicated by event id in the same
    /// transaction), whatever the provider:
    /// - a settled payment settles its invoice only when the provider reference, order id, amount
    ///   and currency all match it (an upgrade invoice debiting the purchase it converts in the same
    ///   transaction); a payment whose refund came first marks the invoice refunded instead;
    /// - a closing closes the invoice while it is open;
    /// - a full refund of a settled payment closes an uncredited invoice or debits the unissued
    ///   months of the purchase it funded, and one that comes before its payment is recorded, so
    ///   the payment marks the invoice refunded instead of paid; a partial one debits its share
    ///   of the months, less what earlier ones debited;
    /// - a dispute opened holds the issuance of what the payment funded; lost, it is a full
    ///   refund; won, the hold ends;
    /// - a hint is checked first: the invoice is read again from the provider (outside any
    ///   transaction), then what that read says is applied; a failed read records nothing, so
    ///   the redelivery is handled.
    public func settle(_ event: PaymentEvent, from provider: String) -> SettlementOutcome {
        let now = clock()
        var change = event.change
        if case .recheck(let reference) = change {
            guard let reader = providers.invoiceStates(of: provider) else { return .ignored("no \(provider) provider configured") }
            do {
                let seen = try store.read { r in try r.invoice(provider: provider, providerRef: reference) }
                guard seen != nil else {
                    return recordOnly(provider: provider, eventId: event.id, at: now, why: "delivery for no invoice")
                }
            } catch {
                return .retryLater("reading the invoice: \(error)")
            }
            do { change = try reader.invoiceState(providerRef: reference).change(providerRef: reference) } catch {
                configuration.reportProviderFailure("\(provider) webhook: \(error)")
                return .retryLater("\(error)")
            }
        }
        let outcome = settlementWrite { w in
            guard try w.recordProviderEvent(provider: provider, eventId: event.id, at: now) else { return .duplicate }
            return try apply(change, from: provider, in: w, at: now)
        }
        if case .settled(let paid) = change { reportUncredited(outcome, provider: provider, reference: paid.providerRef) }
        return outcome
    }

    /// What `change` does to the invoices of `provider`, in `w`: the webhook, `purchaseBadge`'s
    /// look at a late invoice and `reconcile` all come here.
    func apply(_ change: PaymentChange, from provider: String, in w: any StoreWriter, at now: Timestamp) throws -> SettlementOutcome {
        switch change {
        case .settled(let paid):
            return try settle(paid, from: provider, in: w, at: now)
        case .pending:
            return .ignored("invoice not settled yet")
        case let .closed(reference, unknown, closed):
            guard let invoice = try w.invoice(provider: provider, providerRef: reference) else { return .ignored(unknown) }
            guard try w.setInvoiceStatus(invoiceId: invoice.invoiceId, from: [.open], to: .closed, paidAt: nil, paymentRef: nil)
            else { return .ignored("invoice already \(invoice.status.rawValue)") }
            return .applied(closed)
        case let .refunded(payment, extent):
            if case let .partial(refunded, amount) = extent {
                return try partialRefund(of: payment, refunded: refunded, amount: amount, from: provider, in: w, at: now)
            }
            guard let invoice = try w.invoice(provider: provider, paymentRef: payment) else {
                // Its payment may still come (a provider need not order its events): kept, so it
                // never settles.
                guard try w.recordRefund(ProviderRefund(provider: provider, kind: .payment, reference: payment), at: now)
                else { return .ignored("refund of a payment not settled yet, recorded already") }
                return .applied("refund of a payment not settled yet recorded")
            }
            return try refund(invoice, in: w, at: now)
        case let .disputed(payment, dispute, state):
            guard try w.recordDispute(provider: provider, disputeId: dispute, paymentRef: payment, status: state.rawValue, at: now) else {
                return .ignored(state == .open ? "dispute already recorded" : "dispute already closed")
            }
            switch state {
            case .open: return .applied("dispute opened, issuance held")
            case .won: return .applied("dispute won, hold released")
            case .lost:
                // The money went back to the buyer: a full refund.
                let refunded = try apply(.refunded(paymentRef: payment, extent: .full), from: provider, in: w, at: now)
                guard case .applied(let what) = refunded else { return refunded }
                return .applied("dispute lost, " + what)
            }
        case .recheck:
            // Only ever applied once read again (settle(_:from:)).
            return .ignored("a hint not read again")
        case .other(let type):
            return .ignored(type)
        }
    }

    /// A settled payment applied to its invoice: settled only when the provider reference, order
    /// id, amount and currency all match it, refunded instead when its payment's refund came first.
    private func settle(_ paid: PaymentSettlement, from provider: String, in w: any StoreWriter,
                        at now: Timestamp) throws -> SettlementOutcome {
        guard let invoice = try w.invoice(provider: provider, providerRef: paid.providerRef) else {
            return .ignored("paid session of no invoice")
        }
        guard paid.orderId == invoice.invoiceId, paid.amount == UInt64(invoice.amount),
              paid.currency?.lowercased() == invoice.currency.lowercased()
        else { return .ignored(Self.unmatchedSettlement) }
        // A provider need not order its events: the refund may have come first.
        if let payment = paid.paymentRef, try w.isRefunded(ProviderRefund(provider: provider, kind: .payment, reference: payment)) {
            guard try w.setInvoiceStatus(invoiceId: invoice.invoiceId, from: [.open, .closed], to: .refunded,
                                         paidAt: nil, paymentRef: payment)
            else { return .ignored("invoice already \(invoice.status.rawValue)") }
            return .applied("invoice refunded before it settled")
        }
        guard try w.setInvoiceStatus(invoiceId: invoice.invoiceId, from: [.open, .closed], to: .paid, paidAt: now,
                                     paymentRef: paid.paymentRef)
        else { return .ignored("invoice already \(invoice.status.rawValue)") }
        return try settled(invoice, in: w, at: now)
    }

    /// What settling an invoice whose payment can never be credited says.
    public static let strandedSettlement = "invoice settled, never to be credited: its key holds a badge another payment funded"

    /// `invoice` was just marked paid in `w`: the upgrade it converts is applied — unless the buyer
    /// paid two invoices of one key (one closed when the key asked again, and its new one). Only one
    /// is credited, so only the first settled converts the old purchase's months. One that settles
    /// after the key's badge was credited is never credited: said to the operator, who refunds it
    /// (one that settles before is said when purchaseBadge credits the other).
    private func settled(_ invoice: InvoiceRecord, in w: any StoreWriter, at now: Timestamp) throws -> SettlementOutcome {
        if let purchase = try w.purchase(key: invoice.purchaseKey),
           try w.creditedPurchase(provider: invoice.provider, providerRef: invoice.invoiceId) != purchase.id {
            return .applied(Self.strandedSettlement)
        }
        if try w.invoices(purchaseKey: invoice.purchaseKey).contains(where: { $0.status == .paid && $0.invoiceId != invoice.invoiceId }) {
            return .applied("invoice settled beside another paid invoice of its key: it converts nothing")
        }
        return .applied(try applyUpgrade(invoice, in: w, at: now).map { "invoice settled, \($0)" } ?? "invoice settled")
    }

    /// What a payment settled for another order, amount or currency than its invoice says: nothing
    /// settles, and the operator is told (the money arrived all the same).
    public static let unmatchedSettlement = "settled payment that does not match its invoice"

    /// Tells the operator, once the outcome is committed, of a payment that arrived and will never
    /// be credited: one to refund at the provider, or to look into.
    func reportUncredited(_ outcome: SettlementOutcome, provider: String, reference: String) {
        switch outcome {
        case .applied(Self.strandedSettlement):
            configuration.reportStrandedPayment("\(provider) payment \(reference) settled an invoice whose key already holds a "
                + "badge another payment funded: it is never credited; refund it at \(provider)")
        case .ignored(Self.unmatchedSettlement):
            configuration.reportStrandedPayment("\(provider) payment \(reference) was settled for another order, amount or "
                + "currency than its invoice: it is never credited; look into it at \(provider)")
        default: break
        }
    }

    /// A refund: an invoice not credited yet can no longer be; a credited one has its purchase's
    /// unissued months debited as `refund` (after a lapse of what ran out).
    private func refund(_ invoice: InvoiceRecord, in w: any StoreWriter, at now: Timestamp) throws -> SettlementOutcome {
        guard let purchaseId = try w.creditedPurchase(provider: invoice.provider, providerRef: invoice.invoiceId) else {
            guard try w.setInvoiceStatus(invoiceId: invoice.invoiceId, from: [.paid, .open, .closed], to: .refunded,
                                         paidAt: nil, paymentRef: nil)
            else { return .ignored("invoice already \(invoice.status.rawValue)") }
            return .applied("uncredited invoice refunded")
        }
        _ = try w.setInvoiceStatus(invoiceId: invoice.invoiceId, from: [.paid], to: .refunded, paidAt: nil, paymentRef: nil)
        return .applied("refund debited \(try debitRefund(purchaseId: purchaseId, in: w, at: now)) months")
    }

    /// A refund of the payment that funded `purchaseId` (a card, an App Store or a Play one-time
    /// purchase): what ran out lapses, the unissued months are debited `refund`, and a pause
    /// ends. Months its recovery receipt moved to another key (funding by receipt: `transferOut`)
    /// are still that payment's, so the refund follows them there, key after key. Returns the
    /// months debited (none for purchases already emptied).
    func debitRefund(purchaseId: Int64, in w: any StoreWriter, at now: Timestamp) throws -> Int {
        var debited = 0
        var next: Int64? = purchaseId
        for _ in 0..<16 {
            guard let id = next else { break }
            let (months, movedTo) = try debitRefund(ofOne: id, in: w, at: now)
            debited += months
            next = movedTo
        }
        return debited
    }

    /// ``debitRefund(purchaseId:in:at:)`` on one purchase; also the purchase its months moved to, if any.
    private func debitRefund(ofOne purchaseId: Int64, in w: any StoreWriter, at now: Timestamp) throws -> (Int, movedTo: Int64?) {
        guard let purchase = try w.purchase(id: purchaseId) else { throw StorageError.corrupt("payment of no purchase") }
        let rows = try w.ledger(purchaseId: purchaseId)
        let tip = rows.last ?? .emptyEntry(at: purchase.createdAt, badgeType: purchase.badgeType)
        // A refund empties the purchase, so it ends a pause too (docs/protocol.md, Pause).
        let pausedSince = try w.pausedSince(purchaseId: purchaseId)
        let debits = try planEnding(from: tip, debit: .refund, at: now, pausedSince: pausedSince, newId: newEntryId)
        if !debits.isEmpty { try w.appendLedger(purchaseId: purchaseId, expectedCount: rows.count, entries: debits) }
        try w.endPause(purchaseId: purchaseId, expected: pausedSince)
        // Funding by receipt moved the months on: the last transferOut names the key.
        var movedTo: Int64?
        for row in rows.reversed() {
            guard case .debit(.transferOut(let key)) = row.entryType else { continue }
            movedTo = try w.purchase(key: key)?.id
            break
        }
        return (debits.last.map { -$0.changeMonths } ?? 0, movedTo)
    }

    /// A refund of part of a payment, `refunded` (cumulative) of `amount`: the months it takes back
    /// (``monthsRefunded(months:refunded:of:)`` of the invoice's months) less those earlier partial
    /// refunds took are debited `refund` from the purchase it funded, following months its receipt
    /// moved. A refund of no more than already applied changes nothing; one of a payment not
    /// credited yet is recorded, and its credit debits it.
    private func partialRefund(of payment: String, refunded: UInt64, amount: UInt64, from provider: String,
                               in w: any StoreWriter, at now: Timestamp) throws -> SettlementOutcome {
        let known = try w.refundProgress(provider: provider, paymentRef: payment)
        if let known, known.refunded >= refunded { return .ignored("partial refund already applied") }
        var progress = RefundProgress(provider: provider, paymentRef: payment, refunded: refunded, amount: amount,
                                      monthsDebited: known?.monthsDebited ?? 0)
        guard let invoice = try w.invoice(provider: provider, paymentRef: payment) else {
            try w.saveRefundProgress(progress, at: now)
            return .applied("partial refund of a payment not settled yet recorded")
        }
        guard invoice.status != .refunded else { return .ignored("invoice already refunded") }
        guard let purchaseId = try w.creditedPurchase(provider: invoice.provider, providerRef: invoice.invoiceId) else {
            try w.saveRefundProgress(progress, at: now)
            return .applied("partial refund of an uncredited invoice recorded")
        }
        let owed = monthsRefunded(months: invoice.months, refunded: refunded, of: amount)
        var left = max(0, owed - progress.monthsDebited)
        let due = left
        var next: Int64? = purchaseId
        for _ in 0..<16 {
            guard let id = next, left > 0 else { break }
            let (months, movedTo) = try debitPartialRefund(ofOne: id, months: left, in: w, at: now)
            left -= months
            next = movedTo
        }
        // Months already issued are not taken back: what was owed is settled either way.
        progress.monthsDebited = max(owed, progress.monthsDebited)
        try w.saveRefundProgress(progress, at: now)
        return .applied("partial refund debited \(due - left) months")
    }

    /// At most `months` of one purchase's unissued months debited `refund` (after a lapse of what
    /// ran out); a pause goes on from the debit. Also the purchase its months moved to, if any.
    private func debitPartialRefund(ofOne purchaseId: Int64, months: Int, in w: any StoreWriter,
                                    at now: Timestamp) throws -> (Int, movedTo: Int64?) {
        guard let purchase = try w.purchase(id: purchaseId) else { throw StorageError.corrupt("payment of no purchase") }
        let rows = try w.ledger(purchaseId: purchaseId)
        let tip = rows.last ?? .emptyEntry(at: purchase.createdAt, badgeType: purchase.badgeType)
        let pausedSince = try w.pausedSince(purchaseId: purchaseId)
        let debits = try planPartialDebit(from: tip, debit: .refund, months: months, at: now, pausedSince: pausedSince,
                                          newId: newEntryId)
        if let last = debits.last {
            try w.appendLedger(purchaseId: purchaseId, expectedCount: rows.count, entries: debits)
            // Only issueBadge resumes: a pause goes on from the debit (docs/protocol.md, Pause).
            if pausedSince != nil { try w.setPause(purchaseId: purchaseId, since: last.createdAt) }
        }
        var movedTo: Int64?
        for row in rows.reversed() {
            guard case .debit(.transferOut(let key)) = row.entryType else { continue }
            movedTo = try w.purchase(key: key)?.id
            break
        }
        let taken = debits.last.flatMap { $0.entryType == .debit(.refund) ? -$0.changeMonths : nil } ?? 0
        return (taken, movedTo)
    }

    /// Whether the issuance of a purchase is held: a dispute is open of the payment that funded
    /// it, or of the one that funded the purchase its months came from by receipt (key after key).
    func isHeld(purchaseId: Int64, in r: any StoreReader) throws -> Bool {
        var next: Int64? = purchaseId
        for _ in 0..<16 {
            guard let id = next else { return false }
            if try r.holdsOpenDispute(purchaseId: id) { return true }
            guard case .credit(.transferIn(let from))? = try r.ledger(purchaseId: id).first?.entryType else { return false }
            next = try r.purchase(key: from)?.id
        }
        return false
    }

    /// The `retryAfter` of `payment_pending` while a dispute holds a purchase: disputes take weeks.
    public static let disputeRetrySeconds: UInt32 = 86_400

    private func recordOnly(provider: String, eventId: String, at now: Timestamp, why: String) -> SettlementOutcome {
        settlementWrite { w in
            try w.recordProviderEvent(provider: provider, eventId: eventId, at: now) ? .ignored(why) : .duplicate
        }
    }

    /// One write transaction; a database failure records nothing and asks for a redelivery.
    func settlementWrite(_ body: (any StoreWriter) throws -> SettlementOutcome) -> SettlementOutcome {
        do { return try store.write(body) } catch {
            configuration.reportInternalError("webhook: \(error)")
            return .retryLater("database: \(error)")
        }
    }
}
