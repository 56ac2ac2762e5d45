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

/// Stripe's partial refunds, disputes and 409/429 answers at the handler level (docs/protocol.md,
/// Refunds and disputes): each rule a test named after it, over the fakes.
@Suite(.timeLimit(.minutes(5))) struct RefundAndDisputeTests {
    let h: PaymentHarness
    init() throws { h = try PaymentHarness() }

    /// Twelve months (the 12-month offer: 4200 cents) bought by `key` and paid by `intent`;
    /// credited unless `credit` is false. Returns the invoice record.
    private func paid(by key: Ed25519PrivateKey, intent: String, credit: Bool = true) throws -> InvoiceRecord {
        let invoice = try #require(h.invoice(by: key, offerId: DefaultCatalog.supporterTwelveMonthsOfferId).invoice)
        let record = try h.record(invoice.invoiceId)
        #expect(record.amount == 4200 && record.months == 12)
        #expect(try h.deliverStripe(h.stripeEvent(type: "checkout.session.completed", object: h.paidSession(record, intent: intent)))
                == .applied("invoice settled"))
        if credit { #expect(h.purchase(by: key, invoiceId: invoice.invoiceId, masterKey: SecureRandom.bytes(32)).credential != nil) }
        return record
    }

    private func charge(_ intent: String, refunded: Int, of amount: Int = 4200) -> JSONValue {
        ["id": .string("ch_" + intent), "object": "charge", "payment_intent": .string(intent), "amount": .number(JSONNumber(amount)),
         "amount_refunded": .number(JSONNumber(refunded)), "refunded": .bool(refunded == amount)]
    }

    private func dispute(_ intent: String, id: String, status: String) -> JSONValue {
        ["id": .string(id), "object": "dispute", "charge": .string("ch_" + intent), "payment_intent": .string(intent),
         "amount": 4200, "reason": "fraudulent", "status": .string(status)]
    }

    private func issue(by key: Ed25519PrivateKey) throws -> RPCResponse {
        let last = try #require(try h.ledger(of: key).last)
        return h.send(.issueBadge(balance: Balance(lastEntry: last)), by: key)
    }

    /// The refunded fraction of the paid months, rounded down, is debited from those unissued;
    /// later partial refunds and the full one debit only the difference, and a replay nothing.
    @Test func aPartialRefundDebitsTheRefundedShareOfThePaidMonthsRoundedDownAndLaterOnesTheDifference() throws {
        let key = Ed25519PrivateKey()
        _ = try paid(by: key, intent: "pi_part")
        // 1000 of 4200 is 2.86 of 12 months: 2 debited, the buyer keeps the part month.
        let first = h.stripeEvent(type: "charge.refunded", object: charge("pi_part", refunded: 1000))
        #expect(try h.deliverStripe(first) == .applied("partial refund debited 2 months"))
        #expect(try h.deliverStripe(first) == .duplicate)
        // The same cumulative amount in another event (charge.refunded and charge.refund.updated alike) debits nothing.
        #expect(try h.deliverStripe(h.stripeEvent(type: "charge.refunded", object: charge("pi_part", refunded: 1000)))
                == .ignored("partial refund already applied"))
        // Cumulative 2100 is half: 6 owed, 4 more debited.
        #expect(try h.deliverStripe(h.stripeEvent(type: "charge.refunded", object: charge("pi_part", refunded: 2100)))
                == .applied("partial refund debited 4 months"))
        // An older, smaller total delivered late changes nothing.
        #expect(try h.deliverStripe(h.stripeEvent(type: "charge.refunded", object: charge("pi_part", refunded: 1500)))
                == .ignored("partial refund already applied"))
        // The full refund takes what remains.
        #expect(try h.deliverStripe(h.stripeEvent(type: "charge.refunded", object: charge("pi_part", refunded: 4200)))
                == .applied("refund debited 5 months"))
        let ledger = try h.ledger(of: key)
        #expect(ledger.map(\.changeMonths) == [12, -1, -2, -4, -5])
        #expect(ledger.dropFirst(2).allSatisfy { $0.entryType == .debit(.refund) } && ledger.last?.balanceMonths == 0)
        #expect(checkLedger(ledger, purchaseBadgeType: .supporter) == nil)
    }

    /// A partial refund of a settled payment not yet presented is recorded, and its credit
    /// debits the share after the first month.
    @Test func aPartialRefundBeforeTheCreditIsDebitedByTheCredit() throws {
        let key = Ed25519PrivateKey()
        let record = try paid(by: key, intent: "pi_early", credit: false)
        #expect(try h.deliverStripe(h.stripeEvent(type: "charge.refunded", object: charge("pi_early", refunded: 2100)))
                == .applied("partial refund of an uncredited invoice recorded"))
        let bought = h.purchase(by: key, invoiceId: record.invoiceId, masterKey: SecureRandom.bytes(32))
        #expect(bought.credential != nil)
        #expect(bought.statement?.entries.map(\.changeMonths) == [12, -1, -6])
        #expect(bought.statement?.entries.last?.entryType == .debit(.refund))
        // A repeat answers the same rows and writes nothing; the next refund debits the difference.
        #expect(try h.ledger(of: key).count == 3)
        #expect(try h.deliverStripe(h.stripeEvent(type: "charge.refunded", object: charge("pi_early", refunded: 3150)))
                == .applied("partial refund debited 3 months"))
    }

    /// A partial refund leaves the rest of the months the buyer's: the recovery receipt still moves them.
    @Test func aPartlyRefundedPurchaseKeepsItsReceipt() throws {
        let key = Ed25519PrivateKey(), holder = Ed25519PrivateKey()
        let record = try paid(by: key, intent: "pi_keep", credit: false)
        let receipt = try #require(h.purchase(by: key, invoiceId: record.invoiceId, masterKey: SecureRandom.bytes(32)).receipt)
        #expect(try h.deliverStripe(h.stripeEvent(type: "charge.refunded", object: charge("pi_keep", refunded: 1400)))
                == .applied("partial refund debited 4 months"))
        let moved = h.send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .receipt(receipt: receipt), upgrade: nil), by: holder)
        #expect(moved.statement?.entries.map(\.changeMonths) == [7, -1])
    }

    /// An open dispute holds the month due (payment_pending, a day) while the period already
    /// issued keeps answering its credential; a won dispute releases the hold.
    @Test func aDisputeHoldsIssuanceUntilItIsWon() throws {
        let key = Ed25519PrivateKey()
        _ = try paid(by: key, intent: "pi_dispute")
        let opened = h.stripeEvent(type: "charge.dispute.created", object: dispute("pi_dispute", id: "dp_1", status: "needs_response"))
        #expect(try h.deliverStripe(opened) == .applied("dispute opened, issuance held"))
        #expect(try h.deliverStripe(opened) == .duplicate)
        #expect(try issue(by: key).credential != nil)
        h.clock.now = h.clock.now.adding(seconds: 40 * 86_400)
        let held = try issue(by: key)
        #expect(held.errorCode == .paymentPending && held.retryAfter == BadgeService.disputeRetrySeconds)
        #expect(try h.ledger(of: key).count == 2)
        #expect(try h.deliverStripe(h.stripeEvent(type: "charge.dispute.closed", object: dispute("pi_dispute", id: "dp_1", status: "won")),
                                    timestamp: Int(h.clock.now.seconds))
                == .applied("dispute won, hold released"))
        let released = try issue(by: key)
        #expect(released.credential != nil)
        #expect(try h.ledger(of: key).last?.entryType == .debit(.badge))
    }

    /// A lost dispute is a full refund: the unissued months are debited `refund`; its redelivery
    /// (another event id) debits nothing more.
    @Test func aLostDisputeDebitsAsAFullRefund() throws {
        let key = Ed25519PrivateKey()
        _ = try paid(by: key, intent: "pi_lost")
        #expect(try h.deliverStripe(h.stripeEvent(type: "charge.dispute.created", object: dispute("pi_lost", id: "dp_2", status: "needs_response")))
                == .applied("dispute opened, issuance held"))
        #expect(try h.deliverStripe(h.stripeEvent(type: "charge.dispute.closed", object: dispute("pi_lost", id: "dp_2", status: "lost")))
                == .applied("dispute lost, refund debited 11 months"))
        #expect(try h.deliverStripe(h.stripeEvent(type: "charge.dispute.closed", object: dispute("pi_lost", id: "dp_2", status: "lost")))
                == .ignored("dispute already closed"))
        let ledger = try h.ledger(of: key)
        #expect(ledger.map(\.changeMonths) == [12, -1, -11] && ledger.last?.entryType == .debit(.refund))
    }

    /// A dispute of a settled payment not yet presented holds its credit; an inquiry closed
    /// without a chargeback (`warning_closed`) releases it.
    @Test func aDisputeBeforeTheCreditHoldsPurchaseBadge() throws {
        let key = Ed25519PrivateKey()
        let record = try paid(by: key, intent: "pi_inquiry", credit: false)
        #expect(try h.deliverStripe(h.stripeEvent(type: "charge.dispute.created",
                                                  object: dispute("pi_inquiry", id: "dp_3", status: "warning_needs_response")))
                == .applied("dispute opened, issuance held"))
        let held = h.purchase(by: key, invoiceId: record.invoiceId, masterKey: SecureRandom.bytes(32))
        #expect(held.errorCode == .paymentPending && held.retryAfter == BadgeService.disputeRetrySeconds)
        #expect(try h.ledger(of: key).isEmpty)
        #expect(try h.deliverStripe(h.stripeEvent(type: "charge.dispute.closed",
                                                  object: dispute("pi_inquiry", id: "dp_3", status: "warning_closed")))
                == .applied("dispute won, hold released"))
        #expect(h.purchase(by: key, invoiceId: record.invoiceId, masterKey: SecureRandom.bytes(32)).credential != nil)
    }

    /// Stripe's 429 and 409 are provider_unavailable with the wait its Retry-After asks (seconds
    /// or an HTTP-date; a minute without one), and Stripe is not called again before it ends.
    @Test func stripeBusyAnswersHonourRetryAfterAndAreNotRetriedBeforeIt() throws {
        let failed = { try self.h.fake.requests("failed").count }
        try h.fake.setMode("stripe", "429")
        let limited = h.invoice(by: Ed25519PrivateKey())
        #expect(limited.errorCode == .providerUnavailable && limited.retryAfter == 120)
        #expect(try failed() == 1)
        // Asked again at once (another key): answered from the wait, Stripe not called.
        try h.fake.setMode("stripe", "ok")
        let waiting = h.invoice(by: Ed25519PrivateKey())
        #expect(waiting.errorCode == .providerUnavailable && (1...120).contains(waiting.retryAfter ?? 0))
        #expect(try h.fake.requests("stripe").isEmpty)

        for (mode, range) in [("409", UInt32(1)...UInt32(31)), ("429-bare", UInt32(60)...UInt32(60))] {
            h.restart()  // a fresh client: no wait carried over
            try h.fake.setMode("stripe", mode)
            let out = h.invoice(by: Ed25519PrivateKey())
            #expect(out.errorCode == .providerUnavailable && range.contains(out.retryAfter ?? 0), "\(mode): \(out)")
        }
        #expect(try failed() == 3)
    }
}
