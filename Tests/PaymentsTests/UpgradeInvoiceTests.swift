import BadgeCore
import Crypto
import Foundation
import Handlers
import JSON
import Ledger
import Locking
import Providers
import Schema
import Storage
import TestSupport
import Testing

/// getBadgeInvoice.upgrade (docs/protocol.md, Upgrades): the conversion credit, the proof's
/// refusals, and the settlement's `upgrade` debit on the old purchase — once, whatever the
/// redeliveries, and correct when the old purchase changed in between.
@Suite(.timeLimit(.minutes(5))) struct UpgradeInvoiceTests {
    let h: PaymentHarness
    init() throws { h = try PaymentHarness() }

    /// A 12-month supporter purchase paid 4200 (six months free) and its first month issued.
    func supporter12(_ key: Ed25519PrivateKey) throws -> (receipt: String, last: LedgerEntry) {
        let invoice = try #require(h.invoice(by: key, offerId: DefaultCatalog.supporterTwelveMonthsOfferId).invoice)
        #expect(invoice.amount == 4200)
        _ = try deliver(h.stripeEvent(type: "checkout.session.completed",
                                              object: h.paidSession(try h.record(invoice.invoiceId), intent: "pi_" + UUID().uuidString)))
        let bought = h.purchase(by: key, invoiceId: invoice.invoiceId, masterKey: SecureRandom.bytes(32))
        return (try #require(bought.receipt), try #require(bought.statement?.entries.last))
    }

    func proof(from old: Ed25519PrivateKey, to new: Ed25519PrivateKey, receipt: String, last: LedgerEntry) -> UpgradeProof {
        let from = old.publicKey.purchaseKeyText
        let message = UpgradeProof.signedMessage(fromPurchaseKey: from, toPurchaseKey: new.publicKey.purchaseKeyText, receipt: receipt)
        return UpgradeProof(fromPurchaseKey: from, receipt: receipt, receiptSignature: old.signature(for: message),
                            balance: Balance(lastEntry: last))
    }

    func upgradeInvoice(by key: Ed25519PrivateKey, _ proof: UpgradeProof, priceId: String = DefaultCatalog.legendPriceId,
                        type: BadgeType = .legend, offerId: String? = nil, via: PaymentVia = .card(provider: .stripe)) -> RPCResponse {
        h.send(.getBadgeInvoice(priceId: priceId, offerId: offerId,
                                badgeInfo: BadgeInfo(badgeType: type, badgeExpiry: h.clock.now, badgeExtra: ""),
                                paymentVia: via, upgrade: proof), by: key)
    }

    /// A card upgrade invoice paid just before it expired, reported after the key asked again and
    /// its new invoice settled: the old purchase is debited once, whichever settles first.
    @Test func twoPaidUpgradeInvoicesOfOneKeyDebitTheOldPurchaseOnce() throws {
        for closedFirst in [false, true] {
            let old = Ed25519PrivateKey(), new = Ed25519PrivateKey()
            let (receipt, last) = try supporter12(old)
            let first = try h.record(try #require(upgradeInvoice(by: new, proof(from: old, to: new, receipt: receipt, last: last)).invoice).invoiceId)
            h.clock.now = first.expiresAt.adding(seconds: 1)
            let last2 = try #require(try h.ledger(of: old).last)
            let second = try h.record(try #require(upgradeInvoice(by: new, proof(from: old, to: new, receipt: receipt, last: last2)).invoice).invoiceId)
            for record in closedFirst ? [first, second] : [second, first] {
                _ = try deliver(h.stripeEvent(type: "checkout.session.completed", object: h.paidSession(record)))
            }
            let credited = closedFirst ? first : second
            #expect(h.purchase(by: new, invoiceId: credited.invoiceId, masterKey: SecureRandom.bytes(32)).credential?.badgeType == .legend)
            let upgrades = try checked(old).filter { if case .debit(.upgrade) = $0.entryType { true } else { false } }
            #expect(upgrades.count == 1, "closed first: \(closedFirst)")
            #expect(h.strandedPayments.withLock { $0 }.last?.contains((closedFirst ? second : first).providerRef) == true)
        }
    }

    /// Asking again once a coin upgrade invoice expired: it may still be paid late, so no second
    /// invoice is made (both could settle) and the answer is payment_pending, not a terminal
    /// refusal; once its late window ends a new invoice is made.
    @Test func anExpiredCoinUpgradeInvoiceAskedAgainWaitsForItsLateWindow() throws {
        let old = Ed25519PrivateKey(), new = Ed25519PrivateKey()
        let (receipt, _) = try supporter12(old)
        func ask() throws -> RPCResponse {
            let last = try #require(try h.ledger(of: old).last)
            return upgradeInvoice(by: new, proof(from: old, to: new, receipt: receipt, last: last), via: .crypto(currency: .btc))
        }
        let first = try #require(try ask().invoice)
        let record = try h.record(first.invoiceId)
        h.clock.now = record.expiresAt.adding(seconds: 60)
        let created = try h.fake.requests("btcpay").filter { $0["method"]?.stringValue == "POST" }.count
        let again = try ask()
        #expect(again.errorCode == .paymentPending, "\(again)")
        #expect(try h.fake.requests("btcpay").filter { $0["method"]?.stringValue == "POST" }.count == created)
        h.clock.now = record.expiresAt.adding(seconds: BTCPayProvider.lateSettlement.seconds)
        let later = try ask()
        #expect(later.invoice != nil && later.invoice?.invoiceId != first.invoiceId, "\(later)")
    }

    /// Delivers a Stripe event signed at the test clock's time (the clock moves by months here).
    func deliver(_ body: String) throws -> SettlementOutcome {
        try h.deliverStripe(body, timestamp: Int(h.clock.now.seconds))
    }

    func checked(_ key: Ed25519PrivateKey) throws -> [LedgerEntry] {
        let rows = try h.ledger(of: key)
        let violation = checkLedger(rows, purchaseBadgeType: rows.first?.balanceBadgeType ?? .supporter)
        #expect(violation == nil, "\(violation.map { "\($0)" } ?? "")")
        return rows
    }

    @Test func theCreditIsTheUnissuedMonthsShareAndSettlementDebitsThemOnce() throws {
        let old = Ed25519PrivateKey(), new = Ed25519PrivateKey()
        let (receipt, last) = try supporter12(old)
        let answer = upgradeInvoice(by: new, proof(from: old, to: new, receipt: receipt, last: last))
        let invoice = try #require(answer.invoice, "\(answer)")
        // 11 unissued months of 12 paid 4200: a credit of 3850 off one legend month (7000).
        #expect(invoice.price == 7000 && invoice.credit == 3850 && invoice.amount == 3150 && invoice.discount == nil)
        #expect(BadgeRPCSchema.shared.validateResponse(answer.json).isEmpty)
        // The provider was asked for the net amount; a repeat answers the same invoice.
        let record = try h.record(invoice.invoiceId)
        #expect(record.amount == 3150 && record.credit == 3850)
        #expect(upgradeInvoice(by: new, proof(from: old, to: new, receipt: receipt, last: last)).invoice == invoice)

        // While it is open, the old purchase converts into no other key and its receipt funds nothing.
        let third = Ed25519PrivateKey()
        let other = upgradeInvoice(by: third, proof(from: old, to: third, receipt: receipt, last: last))
        #expect(other.errorCode == .badRequest)
        #expect(h.send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .receipt(receipt: receipt), upgrade: nil),
                       by: third).errorCode == .badRequest)

        // Settlement debits the 11 months as upgrade naming the new key, in the same transaction.
        let event = h.stripeEvent(type: "checkout.session.completed", object: h.paidSession(record))
        #expect(try deliver(event) == .applied("invoice settled, upgrade debited 11 months"))
        #expect(try deliver(event) == .duplicate)
        #expect(try deliver(h.stripeEvent(type: "checkout.session.completed", object: h.paidSession(record)))
            == .ignored("invoice already paid"))
        let oldRows = try checked(old)
        #expect(oldRows.map(\.changeMonths) == [12, -1, -11])
        #expect(oldRows.last?.entryType == .debit(.upgrade(toPurchaseKey: new.publicKey.purchaseKeyText)))

        // The new purchase: the payment credit of its month, issued, legend.
        let bought = h.purchase(by: new, invoiceId: invoice.invoiceId, masterKey: SecureRandom.bytes(32))
        #expect(bought.credential?.badgeType == .legend)
        #expect(bought.statement?.entries.map(\.entryType) == [.credit(.payment(invoiceId: invoice.invoiceId)), .debit(.badge)])
        _ = try checked(new)
    }

    @Test func aProofThatDoesNotVerifyIsReceiptInvalidAndOtherRefusalsAreBadRequest() throws {
        let old = Ed25519PrivateKey(), new = Ed25519PrivateKey()
        let (receipt, last) = try supporter12(old)
        // Signed for another new key, a receipt not the old purchase's, an unknown old key.
        let elsewhere = proof(from: old, to: Ed25519PrivateKey(), receipt: receipt, last: last)
        #expect(upgradeInvoice(by: new, elsewhere).errorCode == .receiptInvalid)
        let (otherReceipt, _) = try supporter12(Ed25519PrivateKey())
        #expect(upgradeInvoice(by: new, proof(from: old, to: new, receipt: otherReceipt, last: last)).errorCode == .receiptInvalid)
        #expect(upgradeInvoice(by: new, proof(from: Ed25519PrivateKey(), to: new, receipt: receipt, last: last)).errorCode == .receiptInvalid)
        // Not a dearer badge.
        let same = upgradeInvoice(by: new, proof(from: old, to: new, receipt: receipt, last: last),
                                  priceId: DefaultCatalog.supporterPriceId, type: .supporter)
        #expect(same.errorCode == .badRequest)
        // The old key upgrading into itself.
        #expect(upgradeInvoice(by: old, proof(from: old, to: old, receipt: receipt, last: last)).errorCode == .badRequest)
        #expect(try h.store.read { try $0.invoices(purchaseKey: new.publicKey.purchaseKeyText) }.isEmpty)
    }

    /// A month begins before the invoice can settle: the old key may still be issued it, so the
    /// credit leaves it out, and that month stays with the old purchase after settlement.
    @Test func aMonthBeginningBeforeTheInvoiceCanSettleIsNotConverted() throws {
        let old = Ed25519PrivateKey(), new = Ed25519PrivateKey()
        let (receipt, _) = try supporter12(old)
        let start = try #require(try h.ledger(of: old).last).balanceStartTs
        h.clock.now = start.adding(seconds: -1800)
        let last = try #require(try h.ledger(of: old).last)
        let invoice = try #require(upgradeInvoice(by: new, proof(from: old, to: new, receipt: receipt, last: last)).invoice)
        #expect(invoice.credit == 3500)  // 10 of 12 months
        // The month begins and is issued to the old key; settlement debits the 10 credited.
        h.clock.now = start.adding(seconds: 60)
        #expect(h.send(.issueBadge(balance: Balance(lastEntry: last)), by: old).credential != nil)
        #expect(try deliver(h.stripeEvent(type: "checkout.session.completed", object: h.paidSession(try h.record(invoice.invoiceId))))
            == .applied("invoice settled, upgrade debited 10 months"))
        #expect(try checked(old).map(\.changeMonths) == [12, -1, -1, -10])
    }

    /// The old purchase paused before settlement: the upgrade debit ends the pause; refunded
    /// before settlement: nothing is left to debit, and the debit of none names the new key.
    /// A card session paid just before it expired may be reported days later (Stripe retries its
    /// webhook for three days): until then the old purchase's months stay held, so the late
    /// settlement still finds the months its credit was priced on.
    @Test func anExpiredCardUpgradeInvoiceHoldsTheMonthsThroughStripesRetries() throws {
        let old = Ed25519PrivateKey(), new = Ed25519PrivateKey(), third = Ed25519PrivateKey()
        let (receipt, last) = try supporter12(old)
        let invoice = try #require(upgradeInvoice(by: new, proof(from: old, to: new, receipt: receipt, last: last)).invoice)
        let record = try h.record(invoice.invoiceId)
        let fundByReceipt = { self.h.send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .receipt(receipt: receipt), upgrade: nil),
                                          by: third) }
        h.clock.now = record.expiresAt.adding(seconds: 3600)
        #expect(fundByReceipt().errorCode == .badRequest)
        h.clock.now = record.expiresAt.adding(seconds: StripeProvider.lateSettlement.seconds - 60)
        #expect(fundByReceipt().errorCode == .badRequest)
        #expect(try deliver(h.stripeEvent(type: "checkout.session.completed", object: h.paidSession(record)))
                == .applied("invoice settled, upgrade debited 11 months"))
        // Once the window is over, an upgrade invoice that never settled holds nothing.
        let other = Ed25519PrivateKey(), fourth = Ed25519PrivateKey()
        let (otherReceipt, otherLast) = try supporter12(other)
        let unpaid = try #require(upgradeInvoice(by: fourth, proof(from: other, to: fourth, receipt: otherReceipt, last: otherLast)).invoice)
        h.clock.now = try h.record(unpaid.invoiceId).expiresAt.adding(seconds: StripeProvider.lateSettlement.seconds + 60)
        let moved = h.send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .receipt(receipt: otherReceipt), upgrade: nil),
                           by: Ed25519PrivateKey())
        #expect(moved.credential != nil, "\(moved)")
    }

    /// getBadgeInvoice asks the provider outside any transaction: a receipt transfer of the old
    /// purchase that lands meanwhile leaves the credit nothing to stand on, so the invoice is not
    /// recorded (receipt_invalid, as the judge would answer now) and no upgrade holds the months.
    @Test func aReceiptTransferDuringTheProviderCallRefusesTheUpgradeInvoice() throws {
        let old = Ed25519PrivateKey(), new = Ed25519PrivateKey(), third = Ed25519PrivateKey()
        let (receipt, last) = try supporter12(old)
        let moved = LockedValueBox<RPCResponse?>(nil)
        let h = self.h
        let interposed = Interposed(inner: h.stripeProvider) {
            moved.withLock { $0 = h.send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .receipt(receipt: receipt), upgrade: nil),
                                         by: third) }
        }
        let answer = h.send(.getBadgeInvoice(priceId: DefaultCatalog.legendPriceId, offerId: nil,
                                             badgeInfo: BadgeInfo(badgeType: .legend, badgeExpiry: h.clock.now, badgeExtra: ""),
                                             paymentVia: .card(provider: .stripe),
                                             upgrade: proof(from: old, to: new, receipt: receipt, last: last)),
                            by: new, to: h.racingService(card: interposed))
        #expect(moved.withLock { $0 }?.credential != nil)
        #expect(answer.errorCode == .receiptInvalid, "\(answer)")
        let oldId = try #require(try h.store.read { try $0.purchase(key: old.publicKey.purchaseKeyText) }).id
        #expect(try h.store.read { try $0.invoiceUpgrades(fromPurchaseId: oldId) }.isEmpty)
        #expect(try h.store.read { try $0.invoices(purchaseKey: new.publicKey.purchaseKeyText) }.isEmpty)
    }

    /// The write's re-check refuses months that left the old purchase, not the `upgrade` debit a
    /// grant of another badge type writes naming the purchase's own key.
    @Test func anUpgradeDebitNamingThePurchaseItselfDoesNotRefuseTheInvoice() throws {
        let old = Ed25519PrivateKey(), new = Ed25519PrivateKey()
        let (receipt, last) = try supporter12(old)
        let rows = try h.ledger(of: old)
        let own = try last.debit(.upgrade(toPurchaseKey: old.publicKey.purchaseKeyText), months: 0, at: h.clock.now,
                                 newId: { UUID().uuidString })
        let oldId = try #require(try h.store.read { try $0.purchase(key: old.publicKey.purchaseKeyText) }).id
        try h.store.write { try $0.appendLedger(purchaseId: oldId, expectedCount: rows.count, entries: [own]) }
        let answer = upgradeInvoice(by: new, proof(from: old, to: new, receipt: receipt, last: own))
        #expect(answer.invoice != nil, "\(answer)")
    }

    /// The other order: an upgrade invoice recorded after a receipt transfer read the purchase and
    /// before its write lands. The write re-checks, the pass is re-run, and the transfer refused:
    /// the invoice's credit keeps the months it was priced on.
    @Test func anUpgradeInvoiceRecordedBeforeAReceiptTransferWritesHoldsTheMonths() throws {
        let old = Ed25519PrivateKey(), new = Ed25519PrivateKey(), third = Ed25519PrivateKey()
        let (receipt, last) = try supporter12(old)
        let opened = LockedValueBox<RPCResponse?>(nil)
        let h = self.h
        let proof = proof(from: old, to: new, receipt: receipt, last: last)
        let store = BeforeFirstWrite(inner: h.store) {
            opened.withLock { $0 = self.upgradeInvoice(by: new, proof) }
        }
        let answer = h.send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .receipt(receipt: receipt), upgrade: nil),
                            by: third, to: h.racingService(store: store))
        #expect(opened.withLock { $0 }?.invoice != nil)
        #expect(answer.errorCode == .badRequest, "\(answer)")
        #expect(!(try h.ledger(of: old)).contains { if case .debit(.transferOut) = $0.entryType { true } else { false } })
        #expect(try h.ledger(of: third).isEmpty)
    }

    @Test func settlementAfterAPauseOrARefundOfTheOldPurchase() throws {
        let old = Ed25519PrivateKey(), new = Ed25519PrivateKey()
        let (receipt, last) = try supporter12(old)
        let invoice = try #require(upgradeInvoice(by: new, proof(from: old, to: new, receipt: receipt, last: last)).invoice)
        h.clock.now = h.clock.now.adding(seconds: 60)
        #expect(h.send(.pauseBadge, by: old).errorCode == nil)
        h.clock.now = h.clock.now.adding(seconds: 60)
        #expect(try deliver(h.stripeEvent(type: "checkout.session.completed", object: h.paidSession(try h.record(invoice.invoiceId))))
            == .applied("invoice settled, upgrade debited 11 months"))
        let rows = try checked(old)
        #expect(rows.last?.wasPausedSince != nil && rows.last?.balanceMonths == 0)
        #expect(try h.store.read { r in try r.pausedSince(purchaseId: try #require(try r.purchase(key: old.publicKey.purchaseKeyText)).id) } == nil)

        // Refunded while the invoice was open.
        let old2 = Ed25519PrivateKey(), new2 = Ed25519PrivateKey()
        let (receipt2, last2) = try supporter12(old2)
        let oldInvoice = try #require(try h.store.read { try $0.invoices(purchaseKey: old2.publicKey.purchaseKeyText) }.first)
        let invoice2 = try #require(upgradeInvoice(by: new2, proof(from: old2, to: new2, receipt: receipt2, last: last2)).invoice)
        let charge: JSONValue = ["id": "ch_up", "object": "charge", "payment_intent": .string(oldInvoice.paymentRef ?? ""),
                                 "amount": .number(JSONNumber(Int(oldInvoice.amount))),
                                 "amount_refunded": .number(JSONNumber(Int(oldInvoice.amount))), "refunded": true]
        #expect(try deliver(h.stripeEvent(type: "charge.refunded", object: charge)) == .applied("refund debited 11 months"))
        #expect(try deliver(h.stripeEvent(type: "checkout.session.completed", object: h.paidSession(try h.record(invoice2.invoiceId))))
            == .applied("invoice settled, upgrade debited 0 of the 11 months credited"))
        let rows2 = try checked(old2)
        #expect(rows2.last?.entryType == .debit(.upgrade(toPurchaseKey: new2.publicKey.purchaseKeyText)) && rows2.last?.changeMonths == 0)
    }
}

/// A card provider that runs `before` when asked, then asks `inner`: what lands while the
/// service waits for the provider.
struct Interposed: PaymentProvider {
    let inner: StripeProvider
    let before: @Sendable () -> Void
    var name: String { inner.name }
    var methods: Set<PaymentMethod> { inner.methods }
    var lateSettlement: LateSettlement { inner.lateSettlement }
    func createPayment(_ request: PaymentRequest) throws(PaymentProviderError) -> PaymentDestination {
        before()
        return try inner.createPayment(request)
    }
    func event(of delivery: WebhookDelivery, at now: Timestamp) throws(WebhookRefusal) -> PaymentEvent {
        try inner.event(of: delivery, at: now)
    }
}
