import BadgeCore
import Crypto
import Foundation
import Handlers
import JSON
import Ledger
import Providers
import Schema
import Storage
import TestSupport
import Testing

/// getBadgeInvoice → provider (the fakes over HTTP) → signed webhook → purchaseBadge, at the
/// handler level: the rules of issue 9 one by one.
@Suite(.timeLimit(.minutes(5))) struct InvoiceFlowTests {
    let h: PaymentHarness
    init() throws { h = try PaymentHarness() }

    @Test func anInvoiceIsPricedRecordedAndReturnedAgainWhileOpen() throws {
        let key = Ed25519PrivateKey()
        let first = h.invoice(by: key, offerId: DefaultCatalog.supporterThreeMonthsOfferId)
        let invoice = try #require(first.invoice)
        #expect(first.months == 3)
        #expect(invoice.price == 2100 && invoice.discount == 700 && invoice.credit == nil && invoice.amount == 1400)
        #expect(invoice.currency == "usd")
        #expect(invoice.expiresAt == h.clock.now.adding(seconds: BadgeService.invoiceLifetimeSeconds))
        guard case .card(.stripe, let url) = invoice.paymentTo else { Issue.record("\(invoice.paymentTo)"); return }
        #expect(url.hasPrefix("https://checkout.stripe.test/"))
        #expect(BadgeRPCSchema.shared.validateResponse(first.json).isEmpty)
        // a repeat, also another offer or method, answers the open invoice without asking Stripe
        let calls = try h.fake.requests("stripe").count
        #expect(h.invoice(by: key).invoice == invoice)
        #expect(h.invoice(by: key, via: .crypto(currency: .btc)).invoice == invoice)
        h.restart()
        h.clock.now = h.clock.now.adding(seconds: 3599)
        #expect(h.invoice(by: key).invoice == invoice)
        #expect(try h.fake.requests("stripe").count == calls)
        // once it expires, a new one is made
        h.clock.now = h.clock.now.adding(seconds: 1)
        let next = try #require(h.invoice(by: key).invoice)
        #expect(next.invoiceId != invoice.invoiceId && next.amount == 700)
        #expect(try h.record(invoice.invoiceId).status == .closed)
    }

    @Test func catalogRefusalsAndMissingProviders() throws {
        let key = Ed25519PrivateKey()
        #expect(h.invoice(by: key, priceId: "nope").errorCode == .productUnavailable)
        #expect(h.invoice(by: key, offerId: "nope").errorCode == .unknownOfferId)
        #expect(h.invoice(by: key, offerId: DefaultCatalog.legendThreeMonthsOfferId).errorCode == .offerMismatch)
        #expect(h.invoice(by: key, type: .legend).errorCode == .offerMismatch)
        _ = try h.store.write { try $0.setOfferStatus(offerId: DefaultCatalog.supporterTwelveMonthsOfferId, .disabled) }
        #expect(h.invoice(by: key, offerId: DefaultCatalog.supporterTwelveMonthsOfferId).errorCode == .offerDisabled)
        #expect(try h.store.read { try $0.invoices(purchaseKey: key.publicKey.purchaseKeyText) }.isEmpty)

        let bare = BadgeService(store: h.store, issuer: h.issuer, clock: { h.clock.now })
        let request = RPCRequest(purchaseKey: key.publicKey.purchaseKeyText, command: .getBadgeInvoice(
            priceId: DefaultCatalog.supporterPriceId, offerId: nil,
            badgeInfo: BadgeInfo(badgeType: .supporter, badgeExpiry: h.clock.now), paymentVia: .crypto(currency: .xmr), upgrade: nil))
        #expect(bare.handle(body: request.json.serialized(), caller: .signer(key.publicKey)).response.errorCode == .providerNotConfigured)
    }

    @Test func aProviderOutageIsProviderUnavailableAndTheNextAttemptWorks() throws {
        let key = Ed25519PrivateKey()
        for mode in ["500", "garbage", "hang"] {
            try h.fake.setMode("stripe", mode)
            let out = h.invoice(by: key)
            #expect(out.errorCode == .providerUnavailable, "\(mode)")
            #expect(out.retryAfter == BadgeService.providerRetrySeconds)
        }
        #expect(try h.store.read { try $0.invoices(purchaseKey: key.publicKey.purchaseKeyText) }.isEmpty)
        #expect(h.providerFailures.withLock { $0.count } == 3)
        // no secret in what the operator's log receives
        #expect(h.providerFailures.withLock { $0 }.allSatisfy { !$0.contains(h.fake.stripeKey) })
        try h.fake.setMode("stripe", "ok")
        #expect(h.invoice(by: key).invoice != nil)
        try h.fake.setMode("stripe", "401")
        #expect(h.invoice(by: Ed25519PrivateKey()).errorCode == .internal)
    }

    @Test func aPaidSessionFundsTheBadgeOnceInOneRoundTrip() throws {
        let key = Ed25519PrivateKey()
        let master = SecureRandom.bytes(32)
        let invoice = try #require(h.invoice(by: key, offerId: DefaultCatalog.supporterThreeMonthsOfferId).invoice)
        // the invoice is the key's record: the signed catalog answers an empty statement
        if case .badgeCatalog(_, let statement?) = h.send(.getBadgeCatalog, by: key) {
            #expect(statement.entries.isEmpty)
        } else { Issue.record("no signed catalog") }
        // and issueBadge and pauseBadge answer it so too: no months yet, no credential, nothing paused
        let opening = LedgerEntry.emptyEntry(at: h.clock.now, badgeType: .supporter)
        for command: RPCCommand in [.issueBadge(balance: Balance(lastEntry: opening)), .pauseBadge] {
            guard case .badgeCredential(nil, let statement, nil, nil) = h.send(command, by: key) else {
                Issue.record("\(command): \(h.send(command, by: key))")
                continue
            }
            #expect(statement.entries.isEmpty && statement.previousEntryId == nil)
        }
        #expect(h.send(.issueBadge(balance: Balance(lastEntry: opening)), by: Ed25519PrivateKey()).errorCode == .unknownPurchaseKey)
        #expect(h.send(.pauseBadge, by: Ed25519PrivateKey()).errorCode == .unknownPurchaseKey)
        // transferBadge wants a key with no record: credited a store's payment, the key could never
        // be credited its invoice (before the store is asked, or whether one is deployed).
        #expect(h.send(.transferBadge(masterKey: master, payment: .apple(jws: "x.y.z")), by: key).errorCode == .badRequest)
        let pending = h.purchase(by: key, invoiceId: invoice.invoiceId, masterKey: master)
        #expect(pending.errorCode == .paymentPending)
        #expect((pending.retryAfter ?? 0) > 0)
        #expect(try h.ledger(of: key).isEmpty)

        let record = try h.record(invoice.invoiceId)
        #expect(try h.deliverStripe(h.stripeEvent(type: "checkout.session.completed", object: h.paidSession(record))) == .applied("invoice settled"))
        #expect(try h.record(invoice.invoiceId).status == .paid)

        let bought = h.purchase(by: key, invoiceId: invoice.invoiceId, masterKey: master)
        let credential = try #require(bought.credential)
        #expect(credential.masterKey == master && credential.badgeType == .supporter)
        let entries = try #require(bought.statement?.entries)
        #expect(entries.map(\.changeMonths) == [3, -1])
        #expect(entries.map(\.entryType) == [.credit(.payment(invoiceId: invoice.invoiceId)), .debit(.badge)])
        let receipt = try #require(bought.receipt)
        #expect(BadgeRPCSchema.shared.validateResponse(bought.json).isEmpty)
        // only the receipt's hash is stored
        let stored = try h.readBlobs("SELECT receipt_hash FROM badge_receipts")
        #expect(stored == [SHA256.hash(Array(receipt.utf8))])
        // a repeat answers the same and writes nothing; another key's attempt is receipt_used
        let again = h.purchase(by: key, invoiceId: invoice.invoiceId, masterKey: master)
        #expect(again == bought)
        #expect(h.issuer.count == 1)
        let other = Ed25519PrivateKey()
        _ = h.invoice(by: other)
        #expect(h.purchase(by: other, invoiceId: invoice.invoiceId, masterKey: master).errorCode == .receiptUsed)
        // a key with no record at all is unknown; an invoice id never made is receipt_invalid
        #expect(h.purchase(by: Ed25519PrivateKey(), invoiceId: invoice.invoiceId, masterKey: master).errorCode == .unknownPurchaseKey)
        #expect(h.purchase(by: other, invoiceId: "never-made", masterKey: master).errorCode == .receiptInvalid)
        #expect(try h.ledger(of: key).count == 2)
    }

    @Test func twentyIdenticalDeliveriesAtOnceSettleOnce() throws {
        let key = Ed25519PrivateKey()
        let invoice = try #require(h.invoice(by: key).invoice)
        let record = try h.record(invoice.invoiceId)
        let body = h.stripeEvent(type: "checkout.session.completed", object: h.paidSession(record))
        let header = try h.fake.stripeSignature(payload: body, secret: h.stripeWebhookSecret)
        let outcomes = LockedOutcomes()
        DispatchQueue.concurrentPerform(iterations: 20) { _ in
            guard let event = try? h.stripeWebhook.event(body: Array(body.utf8), signatureHeader: header, now: h.clock.now) else { return }
            outcomes.append(h.service.settle(StripeProvider.paymentEvent(event), from: "stripe"))
        }
        let all = outcomes.all
        #expect(all.count == 20)
        #expect(all.filter { $0 == .applied("invoice settled") }.count == 1)
        #expect(all.filter { $0 == .duplicate }.count == 19)
        // twenty purchases at once credit once
        let master = SecureRandom.bytes(32)
        let answers = LockedResponses()
        DispatchQueue.concurrentPerform(iterations: 20) { _ in answers.append(h.purchase(by: key, invoiceId: invoice.invoiceId, masterKey: master)) }
        #expect(Set(answers.all).count == 1)
        #expect(answers.all.first?.credential != nil)
        #expect(try h.ledger(of: key).map(\.changeMonths) == [1, -1])
    }

    @Test func deliveriesThatDoNotMatchSettleNothing() throws {
        let key = Ed25519PrivateKey()
        let invoice = try #require(h.invoice(by: key).invoice)
        let record = try h.record(invoice.invoiceId)
        let wrong: [JSONValue] = [
            h.paidSession(record, amount: Int(record.amount) - 1),
            h.paidSession(record, currency: "eur"),
            h.paidSession(record, reference: "someone-else"),
        ]
        for (n, object) in wrong.enumerated() {
            #expect(try h.deliverStripe(h.stripeEvent(type: "checkout.session.completed", object: object))
                    == .ignored(BadgeService.unmatchedSettlement))
            // The money arrived: the operator is told, naming the session.
            #expect(h.strandedPayments.withLock { $0 }.count == n + 1)
            #expect(h.strandedPayments.withLock { $0 }.last?.contains("stripe payment \(record.providerRef) was settled for another") == true)
        }
        var unknown = h.paidSession(record)
        if case .object(var o) = unknown { o["id"] = "cs_test_unknown"; unknown = .object(o) }
        #expect(try h.deliverStripe(h.stripeEvent(type: "checkout.session.completed", object: unknown)) == .ignored("paid session of no invoice"))
        // completed but unpaid (a delayed method): nothing yet
        var unpaid = h.paidSession(record)
        if case .object(var o) = unpaid { o["payment_status"] = "unpaid"; unpaid = .object(o) }
        #expect(try h.deliverStripe(h.stripeEvent(type: "checkout.session.completed", object: unpaid)) == .ignored("checkout.session.completed"))
        #expect(try h.record(invoice.invoiceId).status == .open)
        #expect(h.purchase(by: key, invoiceId: invoice.invoiceId, masterKey: SecureRandom.bytes(32)).errorCode == .paymentPending)
        // the delayed payment succeeding settles it
        #expect(try h.deliverStripe(h.stripeEvent(type: "checkout.session.async_payment_succeeded", object: h.paidSession(record)))
                == .applied("invoice settled"))
    }

    @Test func anExpiredSessionClosesTheInvoice() throws {
        let key = Ed25519PrivateKey()
        let invoice = try #require(h.invoice(by: key).invoice)
        let record = try h.record(invoice.invoiceId)
        let object: JSONValue = ["id": .string(record.providerRef), "object": "checkout.session", "status": "expired",
                                 "client_reference_id": .string(record.invoiceId), "payment_status": "unpaid"]
        #expect(try h.deliverStripe(h.stripeEvent(type: "checkout.session.expired", object: object)) == .applied("invoice closed"))
        #expect(h.purchase(by: key, invoiceId: invoice.invoiceId, masterKey: SecureRandom.bytes(32)).errorCode == .receiptInvalid)
        // a new invoice may be asked for
        #expect(try #require(h.invoice(by: key).invoice).invoiceId != invoice.invoiceId)
    }

    /// A completed session whose delayed payment (a bank debit) fails is over: Stripe sends no
    /// `expired` after it, so the failure closes the invoice, or `purchaseBadge` would answer
    /// `payment_pending` for ever and the app would never offer Buy again.
    @Test func aFailedDelayedPaymentClosesTheInvoice() throws {
        let key = Ed25519PrivateKey()
        let invoice = try #require(h.invoice(by: key).invoice)
        let record = try h.record(invoice.invoiceId)
        var unpaid = h.paidSession(record)
        if case .object(var o) = unpaid { o["payment_status"] = "unpaid"; unpaid = .object(o) }
        #expect(try h.deliverStripe(h.stripeEvent(type: "checkout.session.completed", object: unpaid)) == .ignored("checkout.session.completed"))
        #expect(h.purchase(by: key, invoiceId: invoice.invoiceId, masterKey: SecureRandom.bytes(32)).errorCode == .paymentPending)
        #expect(try h.deliverStripe(h.stripeEvent(type: "checkout.session.async_payment_failed", object: unpaid))
                == .applied("invoice closed, its delayed payment failed"))
        #expect(try h.record(invoice.invoiceId).status == .closed)
        #expect(h.purchase(by: key, invoiceId: invoice.invoiceId, masterKey: SecureRandom.bytes(32)).errorCode == .receiptInvalid)
        #expect(try #require(h.invoice(by: key).invoice).invoiceId != invoice.invoiceId)
        // A failure of a session we do not know changes nothing.
        var unknown = unpaid
        if case .object(var o) = unknown { o["id"] = "cs_test_unknown"; unknown = .object(o) }
        #expect(try h.deliverStripe(h.stripeEvent(type: "checkout.session.async_payment_failed", object: unknown))
                == .ignored("failed session of no invoice"))
    }

    /// Stripe does not order its events: a full refund delivered before the paid session is
    /// recorded, and the session then marks the invoice refunded, never paid or credited.
    @Test func aRefundBeforeItsPaidSessionIsNeverCredited() throws {
        let key = Ed25519PrivateKey()
        let invoice = try #require(h.invoice(by: key).invoice)
        let record = try h.record(invoice.invoiceId)
        let charge: JSONValue = ["id": "ch_early", "object": "charge", "payment_intent": "pi_early",
                                 "amount": .number(JSONNumber(Int(record.amount))),
                                 "amount_refunded": .number(JSONNumber(Int(record.amount))), "refunded": true]
        #expect(try h.deliverStripe(h.stripeEvent(type: "charge.refunded", object: charge))
                == .applied("refund of a payment not settled yet recorded"))
        #expect(try h.record(invoice.invoiceId).status == .open)
        #expect(try h.deliverStripe(h.stripeEvent(type: "checkout.session.completed", object: h.paidSession(record, intent: "pi_early")))
                == .applied("invoice refunded before it settled"))
        #expect(try h.record(invoice.invoiceId).status == .refunded)
        #expect(h.purchase(by: key, invoiceId: invoice.invoiceId, masterKey: SecureRandom.bytes(32)).errorCode == .receiptInvalid)
        #expect(try h.ledger(of: key).isEmpty)
        // Another invoice, paid by another intent, settles as before.
        let other = Ed25519PrivateKey()
        let second = try #require(h.invoice(by: other).invoice)
        #expect(try h.deliverStripe(h.stripeEvent(type: "checkout.session.completed",
                                                  object: h.paidSession(try h.record(second.invoiceId), intent: "pi_later")))
                == .applied("invoice settled"))
    }

    @Test func aRefundDebitsTheUnissuedMonths() throws {
        let key = Ed25519PrivateKey()
        let invoice = try #require(h.invoice(by: key, offerId: DefaultCatalog.supporterTwelveMonthsOfferId).invoice)
        let record = try h.record(invoice.invoiceId)
        _ = try h.deliverStripe(h.stripeEvent(type: "checkout.session.completed", object: h.paidSession(record, intent: "pi_refund1")))
        #expect(h.purchase(by: key, invoiceId: invoice.invoiceId, masterKey: SecureRandom.bytes(32)).credential != nil)
        let charge: JSONValue = ["id": "ch_1", "object": "charge", "payment_intent": "pi_refund1", "amount": .number(JSONNumber(Int(record.amount))),
                                 "amount_refunded": .number(JSONNumber(Int(record.amount))), "refunded": true]
        #expect(try h.deliverStripe(h.stripeEvent(type: "charge.refunded", object: charge)) == .applied("refund debited 11 months"))
        let ledger = try h.ledger(of: key)
        #expect(ledger.map(\.changeMonths) == [12, -1, -11])
        #expect(ledger.last?.entryType == .debit(.refund) && ledger.last?.balanceMonths == 0)
        // a refund of an invoice not credited yet makes it unusable
        let other = Ed25519PrivateKey()
        let second = try #require(h.invoice(by: other).invoice)
        _ = try h.deliverStripe(h.stripeEvent(type: "checkout.session.completed", object: h.paidSession(try h.record(second.invoiceId), intent: "pi_refund2")))
        var refund2 = charge
        if case .object(var o) = refund2 { o["payment_intent"] = "pi_refund2"; refund2 = .object(o) }
        #expect(try h.deliverStripe(h.stripeEvent(type: "charge.refunded", object: refund2)) == .applied("uncredited invoice refunded"))
        #expect(h.purchase(by: other, invoiceId: second.invoiceId, masterKey: SecureRandom.bytes(32)).errorCode == .receiptInvalid)
    }

    /// Months a recovery receipt moved to another key are the refunded payment's too: a refund
    /// after the move debits them where they are, not only the emptied purchase it funded.
    @Test func aRefundFollowsTheMonthsItsReceiptMoved() throws {
        let key = Ed25519PrivateKey(), holder = Ed25519PrivateKey()
        let invoice = try #require(h.invoice(by: key, offerId: DefaultCatalog.supporterTwelveMonthsOfferId).invoice)
        let record = try h.record(invoice.invoiceId)
        _ = try h.deliverStripe(h.stripeEvent(type: "checkout.session.completed", object: h.paidSession(record, intent: "pi_moved")))
        let bought = h.purchase(by: key, invoiceId: invoice.invoiceId, masterKey: SecureRandom.bytes(32))
        let receipt = try #require(bought.receipt)
        let moved = h.send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .receipt(receipt: receipt), upgrade: nil), by: holder)
        #expect(moved.statement?.entries.map(\.entryType) == [.credit(.transferIn(fromPurchaseKey: key.publicKey.purchaseKeyText)), .debit(.badge)])
        let charge: JSONValue = ["id": "ch_moved", "object": "charge", "payment_intent": "pi_moved",
                                 "amount": .number(JSONNumber(Int(record.amount))),
                                 "amount_refunded": .number(JSONNumber(Int(record.amount))), "refunded": true]
        #expect(try h.deliverStripe(h.stripeEvent(type: "charge.refunded", object: charge)) == .applied("refund debited 10 months"))
        let held = try h.ledger(of: holder)
        #expect(held.last?.entryType == .debit(.refund) && held.last?.changeMonths == -10 && held.last?.balanceMonths == 0)
        #expect(checkLedger(held, purchaseBadgeType: .supporter) == nil)
        #expect(try h.ledger(of: key).last?.entryType == .debit(.transferOut(toPurchaseKey: holder.publicKey.purchaseKeyText)))
    }

    @Test func cryptoInvoicesSettleOnlyOnTheInvoiceReadBack() throws {
        for (coin, currency) in [(CryptoCurrency.btc, "btc"), (.xmr, "xmr")] {
            let key = Ed25519PrivateKey()
            let out = h.invoice(by: key, via: .crypto(currency: coin))
            let invoice = try #require(out.invoice)
            guard case .crypto(let c, let address, let amount) = invoice.paymentTo else { Issue.record("\(invoice)"); continue }
            #expect(c.rawValue == currency && !address.isEmpty && !amount.isEmpty)
            let record = try h.record(invoice.invoiceId)
            func deliver(_ type: String, id: String = UUID().uuidString) -> SettlementOutcome {
                let body = #"{"deliveryId":"\#(id)","type":"\#(type)","invoiceId":"\#(record.providerRef)","storeId":"\#(h.fake.btcpayStore)"}"#
                return try! h.deliverBTCPay(body)
            }
            // a delivery claiming settlement is only a hint: BTCPay still says New
            #expect(deliver("InvoiceSettled") == .ignored("invoice not settled yet"))
            #expect(h.purchase(by: key, invoiceId: invoice.invoiceId, masterKey: SecureRandom.bytes(32)).errorCode == .paymentPending)
            // settled for another amount (the invoice was edited at BTCPay): nothing settles
            try h.fake.setBTCPayStatus(record.providerRef, "Settled", amount: "6.99")
            #expect(deliver("InvoiceSettled") == .ignored(BadgeService.unmatchedSettlement))
            #expect(h.strandedPayments.withLock { $0 }.last?.contains("btcpay payment \(record.providerRef) was settled for another") == true)
            // BTCPay down while re-reading: nothing recorded, the redelivery is handled
            try h.fake.setBTCPayStatus(record.providerRef, "Settled", amount: "7.00")
            try h.fake.setMode("btcpay", "500")
            #expect(deliver("InvoiceSettled", id: "d-\(currency)") == .retryLater("provider unavailable: reading an invoice: BTCPay answered 500"))
            try h.fake.setMode("btcpay", "ok")
            #expect(deliver("InvoiceSettled", id: "d-\(currency)") == .applied("invoice settled"))
            #expect(deliver("InvoiceSettled", id: "d-\(currency)") == .duplicate)
            let bought = h.purchase(by: key, invoiceId: invoice.invoiceId, masterKey: SecureRandom.bytes(32))
            #expect(bought.statement?.entries.map(\.entryType) == [.credit(.payment(invoiceId: invoice.invoiceId)), .debit(.badge)])
        }
        // expired with a partial payment closes; a late full payment still settles it
        let key = Ed25519PrivateKey()
        let invoice = try #require(h.invoice(by: key, via: .crypto(currency: .btc)).invoice)
        let record = try h.record(invoice.invoiceId)
        func deliver(_ type: String) -> SettlementOutcome {
            let body = #"{"deliveryId":"\#(UUID().uuidString)","type":"\#(type)","invoiceId":"\#(record.providerRef)"}"#
            return try! h.deliverBTCPay(body)
        }
        try h.fake.setBTCPayStatus(record.providerRef, "Expired", additional: "PaidPartial")
        #expect(deliver("InvoiceExpired") == .applied("invoice closed"))
        // a coin payment may still confirm: pending, not dead, for a day past expiry
        #expect(h.purchase(by: key, invoiceId: invoice.invoiceId, masterKey: SecureRandom.bytes(32)).errorCode == .paymentPending)
        try h.fake.setBTCPayStatus(record.providerRef, "Settled", additional: "PaidLate")
        #expect(deliver("InvoicePaidAfterExpiration") == .applied("invoice settled"))
        #expect(h.purchase(by: key, invoiceId: invoice.invoiceId, masterKey: SecureRandom.bytes(32)).credential != nil)
        // a delivery for an invoice we never made settles nothing
        let body = #"{"deliveryId":"x1","type":"InvoiceSettled","invoiceId":"FakeInvNope"}"#
        #expect(try h.deliverBTCPay(body) == .ignored("delivery for no invoice"))
    }
}

extension InvoiceFlowTests {
    /// BTCPay redelivers a failed webhook for about an hour, so a coin invoice unpaid past its
    /// expiry is asked about at BTCPay by purchaseBadge: a settlement whose deliveries were all
    /// lost is credited, and the answer is receipt_invalid only once BTCPay says it is dead.
    @Test func aLateCoinInvoiceIsAskedAboutAtBTCPayBeforeItIsCalledDead() throws {
        func deliver(_ record: InvoiceRecord, _ type: String) -> SettlementOutcome {
            let body = #"{"deliveryId":"\#(UUID().uuidString)","type":"\#(type)","invoiceId":"\#(record.providerRef)"}"#
            return try! h.deliverBTCPay(body)
        }
        func coinInvoice(_ key: Ed25519PrivateKey) throws -> InvoiceRecord {
            try h.record(try #require(h.invoice(by: key, via: .crypto(currency: .btc)).invoice).invoiceId)
        }
        func purchase(_ key: Ed25519PrivateKey, _ record: InvoiceRecord) -> RPCResponse {
            h.purchase(by: key, invoiceId: record.invoiceId, masterKey: SecureRandom.bytes(32))
        }
        let late = BTCPayProvider.lateSettlement.seconds

        // Closed by InvoiceExpired (partly paid), then paid in full late; every delivery of the
        // settlement failed. Past the late window, with BTCPay down: unreachable, not dead.
        let lost = Ed25519PrivateKey()
        let lostRecord = try coinInvoice(lost)
        try h.fake.setBTCPayStatus(lostRecord.providerRef, "Expired", additional: "PaidPartial")
        #expect(deliver(lostRecord, "InvoiceExpired") == .applied("invoice closed"))
        try h.fake.setBTCPayStatus(lostRecord.providerRef, "Settled", additional: "PaidLate")
        try h.fake.setMode("btcpay", "500")
        guard case .retryLater = deliver(lostRecord, "InvoiceSettled") else { Issue.record("the delivery was handled"); return }
        h.clock.now = lostRecord.expiresAt.adding(seconds: late + 1)
        #expect(purchase(lost, lostRecord).errorCode == .providerUnavailable)
        try h.fake.setMode("btcpay", "ok")
        #expect(purchase(lost, lostRecord).statement?.entries.map(\.entryType)
                == [.credit(.payment(invoiceId: lostRecord.invoiceId)), .debit(.badge)])
        #expect(try h.record(lostRecord.invoiceId).status == .paid)

        // No delivery at all: open past its expiry, asked each time; new, then processing, is
        // pending; settled is credited.
        let silent = Ed25519PrivateKey()
        let silentRecord = try coinInvoice(silent)
        h.clock.now = silentRecord.expiresAt.adding(seconds: 1)
        #expect(purchase(silent, silentRecord).errorCode == .paymentPending)
        try h.fake.setBTCPayStatus(silentRecord.providerRef, "Processing")
        h.clock.now = silentRecord.expiresAt.adding(seconds: late + 1)
        #expect(purchase(silent, silentRecord).errorCode == .paymentPending)
        try h.fake.setBTCPayStatus(silentRecord.providerRef, "Settled")
        #expect(purchase(silent, silentRecord).credential != nil)

        // Expired and still watched by BTCPay past our own window: pending until its watch ends.
        let watched = Ed25519PrivateKey()
        let watchedRecord = try coinInvoice(watched)
        let watchEnds = watchedRecord.expiresAt.adding(seconds: late + 7200)
        try h.fake.setBTCPayStatus(watchedRecord.providerRef, "Expired", monitoredUntil: watchEnds)
        h.clock.now = watchedRecord.expiresAt.adding(seconds: late + 60)
        #expect(purchase(watched, watchedRecord).errorCode == .paymentPending)
        #expect(try h.record(watchedRecord.invoiceId).status == .closed)
        h.clock.now = watchEnds
        #expect(purchase(watched, watchedRecord).errorCode == .receiptInvalid)

        // Invalid (failed to confirm, or marked so): dead at once, without waiting for the window.
        let invalid = Ed25519PrivateKey()
        let invalidRecord = try coinInvoice(invalid)
        try h.fake.setBTCPayStatus(invalidRecord.providerRef, "Invalid")
        h.clock.now = invalidRecord.expiresAt.adding(seconds: 1)
        #expect(purchase(invalid, invalidRecord).errorCode == .receiptInvalid)
    }
}

extension InvoiceFlowTests {
    /// A buyer who pays both an invoice closed when the key asked again (paid just before it
    /// expired, reported late) and the new one: one is credited, the other never is, and the
    /// operator is told which payment to refund, whichever settles first.
    @Test func aSecondPaymentOfOneKeyIsNeverCreditedAndTheOperatorIsTold() throws {
        func deliver(_ record: InvoiceRecord) throws -> SettlementOutcome {
            try h.deliverStripe(h.stripeEvent(type: "checkout.session.completed", object: h.paidSession(record)),
                                timestamp: Int(h.clock.now.seconds))
        }
        func twoInvoices(_ key: Ed25519PrivateKey) throws -> (closed: InvoiceRecord, new: InvoiceRecord) {
            let first = try h.record(try #require(h.invoice(by: key).invoice).invoiceId)
            h.clock.now = first.expiresAt.adding(seconds: 1)
            let second = try h.record(try #require(h.invoice(by: key).invoice).invoiceId)
            let firstNow = try h.record(first.invoiceId)
            #expect(second.invoiceId != first.invoiceId && firstNow.status == .closed)
            return (first, second)
        }
        func told() -> [String] { h.strandedPayments.withLock { $0 } }

        // The new one settles and is credited; the closed one's payment is reported after.
        let late = Ed25519PrivateKey()
        let (closed, new) = try twoInvoices(late)
        #expect(try deliver(new) == .applied("invoice settled"))
        #expect(h.purchase(by: late, invoiceId: new.invoiceId, masterKey: SecureRandom.bytes(32)).credential != nil)
        #expect(told().isEmpty)
        #expect(try deliver(closed) == .applied(BadgeService.strandedSettlement))
        #expect(told().count == 1 && told()[0].contains(closed.providerRef) && told()[0].hasPrefix("stripe payment"))
        #expect(h.purchase(by: late, invoiceId: closed.invoiceId, masterKey: SecureRandom.bytes(32)).errorCode == .badRequest)
        #expect(try h.ledger(of: late).filter { $0.changeMonths > 0 }.count == 1)

        // Both settle before either is credited: crediting one tells of the other.
        let early = Ed25519PrivateKey()
        let (closedFirst, newFirst) = try twoInvoices(early)
        #expect(try deliver(closedFirst) == .applied("invoice settled"))
        #expect(try deliver(newFirst) == .applied("invoice settled beside another paid invoice of its key: it converts nothing"))
        #expect(told().count == 1)
        #expect(h.purchase(by: early, invoiceId: newFirst.invoiceId, masterKey: SecureRandom.bytes(32)).credential != nil)
        #expect(told().count == 2 && told()[1].contains(closedFirst.providerRef))
        // A repeat of the credited purchase answers the same and may say it again; nothing more is credited.
        _ = h.purchase(by: early, invoiceId: newFirst.invoiceId, masterKey: SecureRandom.bytes(32))
        #expect(try h.ledger(of: early).filter { $0.changeMonths > 0 }.count == 1)
    }
}

final class LockedOutcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [SettlementOutcome] = []
    func append(_ o: SettlementOutcome) { lock.withLock { items.append(o) } }
    var all: [SettlementOutcome] { lock.withLock { items } }
}

final class LockedResponses: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [RPCResponse] = []
    func append(_ o: RPCResponse) { lock.withLock { items.append(o) } }
    var all: [RPCResponse] { lock.withLock { items } }
}
