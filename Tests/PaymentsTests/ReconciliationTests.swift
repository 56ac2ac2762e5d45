import BadgeCore
import Crypto
import Foundation
import Handlers
import Ledger
import Providers
import Schema
import Storage
import TestSupport
import Testing

/// `reconcile` at the handler level, on the store under test (SQLite, or PostgreSQL with
/// BADGE_TEST_STORE=postgres): what the providers' lists say was settled, applied to a database
/// that lacks it (its webhooks lost, as a restore loses them) through the webhooks' own rules.
@Suite(.timeLimit(.minutes(5))) struct ReconciliationTests {
    let h: PaymentHarness
    init() throws { h = try PaymentHarness() }

    /// Every settlement both fakes list for invoices created around now, read as reconcile reads them.
    func listed() throws -> [ListedSettlement] {
        try listed(by: settlingService()).flatMap(\.settlements)
    }

    /// Each provider's list, as reconcile reads them.
    func listed(by service: BadgeService) throws -> [(provider: String, settlements: [ListedSettlement])] {
        let since = h.clock.now
        return try h.providers.listings.map { source in
            (source.name, try source.settlements(createdSince: service.listingStart(provider: source.name, since: since)))
        }
    }

    func settlingService() -> BadgeService {
        let clock = h.clock
        return BadgeService.settlingOnly(store: h.store, clock: { clock.now }, providers: h.providers)
    }

    func reconcile(dryRun: Bool = false) throws -> [String: ReconcileOutcome] {
        let service = settlingService()
        var outcomes: [String: ReconcileOutcome] = [:]
        for list in try listed(by: service) {
            for settlement in list.settlements {
                outcomes[settlement.providerRef] = service.reconcile(settlement, from: list.provider, dryRun: dryRun)
            }
        }
        return outcomes
    }

    @Test func settlementsTheDatabaseLacksAreAppliedOnceAndThePurchasesGetTheirMonths() throws {
        let paidBefore = Ed25519PrivateKey(), card = Ed25519PrivateKey(), coin = Ed25519PrivateKey(), short = Ed25519PrivateKey()
        let open = Ed25519PrivateKey()
        func made(_ key: Ed25519PrivateKey, via: PaymentVia = .card(provider: .stripe)) throws -> InvoiceRecord {
            try h.record(try #require(h.invoice(by: key, offerId: DefaultCatalog.supporterThreeMonthsOfferId, via: via).invoice).invoiceId)
        }
        let a = try made(paidBefore), b = try made(card), c = try made(coin, via: .crypto(currency: .btc)), d = try made(short)
        _ = try made(open)
        // Settled, its webhook delivered: the database holds it.
        try h.fake.setStripeSession(a.providerRef, paymentIntent: "pi_a")
        #expect(try h.deliverStripe(h.stripeEvent(type: "checkout.session.completed", object: h.paidSession(a, intent: "pi_a")))
                == .applied("invoice settled"))
        // Settled at the providers, their webhooks lost; one paid for another amount than its invoice.
        try h.fake.setStripeSession(b.providerRef, paymentIntent: "pi_b")
        try h.fake.setBTCPayStatus(c.providerRef, "Settled")
        try h.fake.setStripeSession(d.providerRef, paymentIntent: "pi_d", amountTotal: 1)
        // A session this database has no invoice for (made after the backup it was restored from).
        let stray = try h.stripe.createPayment(PaymentRequest(invoiceId: "made-after-the-backup", amount: 700, currency: "usd", method: .card,
                                                              description: "SimpleX supporter badge, 1 month", createdAt: h.clock.now,
                                                              expiresAt: h.clock.now.adding(seconds: 3600)))
        try h.fake.setStripeSession(stray.providerRef, paymentIntent: "pi_stray")
        let master = SecureRandom.bytes(32)
        #expect(h.purchase(by: card, invoiceId: b.invoiceId, masterKey: master).errorCode == .paymentPending)

        let expected: [String: ReconcileOutcome] = [
            a.providerRef: .present, b.providerRef: .applied(invoiceId: b.invoiceId, what: "invoice settled"),
            c.providerRef: .applied(invoiceId: c.invoiceId, what: "invoice settled"), d.providerRef: .unmatched(invoiceId: d.invoiceId),
            stray.providerRef: .notInDatabase(orderId: "made-after-the-backup"),
        ]
        // A dry run says what it would do and writes nothing.
        #expect(try reconcile(dryRun: true) == expected)
        #expect(try [b, c, d].map { try h.record($0.invoiceId).status } == [.open, .open, .open])

        #expect(try reconcile() == expected)
        #expect(try [b, c, d].map { try h.record($0.invoiceId).status } == [.paid, .paid, .open])
        // The purchases get their months; the one paid for another amount never does.
        for (key, invoice) in [(card, b), (coin, c)] {
            let bought = h.purchase(by: key, invoiceId: invoice.invoiceId, masterKey: master)
            #expect(bought.credential?.masterKey == master, "\(bought)")
            let entries = try #require(bought.statement?.entries)
            #expect(entries.map(\.entryType) == [.credit(.payment(invoiceId: invoice.invoiceId)), .debit(.badge)])
            #expect(entries.map(\.changeMonths) == [3, -1])
        }
        #expect(h.purchase(by: short, invoiceId: d.invoiceId, masterKey: master).errorCode == .paymentPending)

        // A second run changes nothing: what was applied is present now.
        let ledgers = try [card, coin].map { try h.ledger(of: $0) }
        #expect(try reconcile() == expected.merging([b.providerRef: .present, c.providerRef: .present]) { $1 })
        #expect(try [card, coin].map { try h.ledger(of: $0) } == ledgers)
        // and a webhook Stripe redelivers after it finds the invoice paid
        #expect(try h.deliverStripe(h.stripeEvent(type: "checkout.session.completed", object: h.paidSession(b, intent: "pi_b")))
                == .ignored("invoice already paid"))
    }

    /// A settlement reconcile finds on an invoice the key closed (it asked again after it expired)
    /// settles it late, as the webhook would; the key's new open invoice stays open.
    @Test func aLateSettlementOfAClosedInvoiceIsApplied() throws {
        let key = Ed25519PrivateKey()
        let first = try h.record(try #require(h.invoice(by: key).invoice).invoiceId)
        h.clock.now = h.clock.now.adding(seconds: BadgeService.invoiceLifetimeSeconds)
        let second = try h.record(try #require(h.invoice(by: key).invoice).invoiceId)
        #expect(try h.record(first.invoiceId).status == .closed)
        try h.fake.setStripeSession(first.providerRef, paymentIntent: "pi_late")
        h.clock.now = h.clock.now.adding(seconds: 60)
        #expect(try reconcile()[first.providerRef] == .applied(invoiceId: first.invoiceId, what: "invoice settled"))
        #expect(try h.record(first.invoiceId).status == .paid && h.record(second.invoiceId).status == .open)
    }
}
