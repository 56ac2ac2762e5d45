import BadgeCore
import Crypto
import Handlers
import Ledger
import Schema
import Storage
import TestSupport
import Testing

/// issueBadge "Subscriptions" over simulated months, with the scripted store and the test clock;
/// after every step the whole ledger is checked as the client replica checks it.
@Suite struct RenewalCheckTests {
    let s: SubscriptionHarness
    init() throws { s = try SubscriptionHarness(at: at(2026, 3, 10)) }

    /// A subscription purchase of `charge` under a fresh key; its key and last entry.
    func subscribed(_ reference: String, _ charge: StoreCharge) throws -> (Ed25519PrivateKey, LedgerEntry) {
        s.apple.answer(reference, .success(.charged(charge)))
        let key = Ed25519PrivateKey()
        let out = try s.purchase(reference, by: key, masterKey: SecureRandom.bytes(32))
        return (key, try #require(out.entries?.last))
    }

    @Test func aMonthlySubscriptionRenewsRetriesAndResumesOverMonths() throws {
        var (key, last) = try subscribed("2001", monthlyCharge("c1", start: at(2026, 3, 10)))

        // No month due: the cached credential, without asking.
        s.now = at(2026, 3, 20)
        var out = s.issue(by: key, asserting: last)
        #expect(out.credential != nil && out.statement?.entries == [])
        #expect(out.response.subscriptionState == .renewing)
        #expect(s.apple.reads == ["2001"])

        // The month is due and the store reports the next charge: granted, the month issued.
        s.now = at(2026, 4, 10, 12)
        s.apple.answer("2001", .success(.charged(monthlyCharge("c2", start: at(2026, 4, 10)), state: .cancelled)))
        out = s.issue(by: key, asserting: last)
        var entries = try #require(out.statement?.entries)
        #expect(entries.map(\.entryType) == [.credit(.charge(chargeId: "c2")), .debit(.badge)])
        #expect(entries[0].createdAt == at(2026, 4, 10, 11))  // dated to the period start
        #expect(out.credential?.expiry == Timestamp(CivilDate(year: 2026, month: 5, day: 12)))
        #expect(out.response.subscriptionState == .cancelled)
        #expect(s.apple.reads.count == 2)
        last = try #require(entries.last)
        _ = try s.checkedLedger(of: key)

        // The next month: the charge failed and the store retries it. Nothing is written, no credential.
        s.now = at(2026, 5, 10, 12)
        s.apple.answer("2001", .success(.refused(SubscriptionRefusal(.paymentPending(retryAfter: SubscriptionRefusal.day), "retrying"),
                                                 state: .billingRetry, latestChargeId: "c2")))
        let before = try s.checkedLedger(of: key)
        out = s.issue(by: key, asserting: last)
        #expect(out.error == nil && out.credential == nil && out.statement?.entries == [])
        #expect(out.response.subscriptionState == .billingRetry)
        // Inside the hour: the same answer from the last read, the store not asked.
        s.now = at(2026, 5, 10, 12).adding(seconds: 1800)
        out = s.issue(by: key, asserting: last)
        #expect(out.credential == nil && out.response.subscriptionState == .billingRetry)
        #expect(s.apple.reads.count == 3)
        #expect(try s.checkedLedger(of: key) == before)

        // The retried charge lands two days late: a new run from its period start.
        s.now = at(2026, 5, 12, 12)
        s.apple.answer("2001", .success(.charged(monthlyCharge("c3", start: at(2026, 5, 12, 9)))))
        out = s.issue(by: key, asserting: last)
        entries = try #require(out.statement?.entries)
        #expect(entries.map(\.entryType) == [.credit(.charge(chargeId: "c3")), .debit(.badge)])
        #expect(entries[0].balanceAnchorTs == at(2026, 5, 12, 9))
        #expect(entries[1].balanceStartTs == at(2026, 6, 12, 9))
        #expect(out.response.subscriptionState == .renewing)
        _ = try s.checkedLedger(of: key)

        // The store reporting the same charge again never grants it twice.
        s.now = at(2026, 6, 12, 10)
        out = s.issue(by: key, asserting: try #require(entries.last))
        #expect(out.credential == nil && out.statement?.entries == [])
        #expect(s.apple.reads.count == 5)
    }

    @Test func anAnnualPlanEndedDuringCoverageIsRefundedAndAnsweredEnded() throws {
        let (key, first) = try subscribed("2002", monthlyCharge("y1", start: at(2026, 3, 10), months: 12))
        s.now = at(2026, 4, 10, 12)
        var out = s.issue(by: key, asserting: first)
        #expect(out.statement?.entries.map(\.entryType) == [.debit(.badge)])
        #expect(out.response.subscriptionState == .renewing)
        let last = try #require(out.statement?.entries.last)

        // Two months later (one ran out unissued) the store reports it ended: lapse, then refund of the rest.
        s.now = at(2026, 6, 15)
        s.apple.answer("2002", .success(.refused(SubscriptionRefusal(.paymentPending(retryAfter: SubscriptionRefusal.day), "ended"),
                                                 state: .ended, latestChargeId: "y1")))
        out = s.issue(by: key, asserting: last)
        let entries = try #require(out.statement?.entries)
        #expect(entries.map(\.entryType) == [.debit(.lapse), .debit(.refund)])
        #expect(entries.map(\.changeMonths) == [-1, -9])
        #expect(entries.last?.createdAt == at(2026, 6, 15))
        #expect(out.credential == nil)
        #expect(out.response.subscriptionState == .ended)
        _ = try s.checkedLedger(of: key)

        // From then on: ended, no credential, inside the hour without asking.
        s.now = at(2026, 6, 15).adding(seconds: 60)
        out = s.issue(by: key, asserting: try #require(entries.last))
        #expect(out.credential == nil && out.response.subscriptionState == .ended && out.statement?.entries == [])
        #expect(s.apple.reads.count == 3)
    }

    @Test func theGrantedChargeRevokedDuringCoverageIsRefunded() throws {
        let (key, first) = try subscribed("2003", monthlyCharge("y2", start: at(2026, 3, 10), months: 12))
        s.now = at(2026, 4, 10, 12)
        s.apple.answer("2003", .success(.charged(monthlyCharge("y2", start: at(2026, 3, 10), months: 12), revoked: true)))
        let out = s.issue(by: key, asserting: first)
        #expect(out.statement?.entries.map(\.entryType) == [.debit(.refund)])
        #expect(out.statement?.entries.first?.changeMonths == -11)
        #expect(out.credential == nil && out.response.subscriptionState == .ended)
        _ = try s.checkedLedger(of: key)
    }

    @Test func aNewChargeDuringCoverageIsRecordedAndGrantedOnlyOnceCoverageEnds() throws {
        let (key, first) = try subscribed("2004", monthlyCharge("q1", start: at(2026, 3, 10), months: 2))
        s.now = at(2026, 4, 10, 12)
        s.apple.answer("2004", .success(.charged(monthlyCharge("q2", start: at(2026, 4, 10), months: 2))))
        var out = s.issue(by: key, asserting: first)
        #expect(out.statement?.entries.map(\.entryType) == [.debit(.badge)])
        #expect(out.statement?.entries.last?.balanceMonths == 0)
        let recorded = try s.h.store.read { r in try r.subscriptionCharges(subscriptionId: try #require(try r.subscription(store: "apple", reference: "2004")).id) }
        #expect(recorded.map(\.chargeId) == ["q1", "q2"])
        #expect(recorded.map { $0.grantedAt != nil } == [true, false])

        // Coverage ends and the store still reports that charge: granted now, extending the run.
        s.now = at(2026, 5, 10, 11)
        out = s.issue(by: key, asserting: try #require(out.statement?.entries.last))
        let entries = try #require(out.statement?.entries)
        #expect(entries.map(\.entryType) == [.credit(.charge(chargeId: "q2")), .debit(.badge)])
        #expect(entries[0].createdAt == at(2026, 4, 10, 12))  // the ledger's last row is later than the period start
        #expect(entries[0].balanceAnchorTs == at(2026, 3, 10))
        #expect(out.credential != nil)
        _ = try s.checkedLedger(of: key)
        #expect(s.apple.reads.count == 3)
    }

    /// A renewal charge a verified notice took back before any check read it (Play reports a
    /// voided order as the latest successful one while the subscription runs on) is never
    /// granted: not from the fresh read, not from the read recorded for the rest of the hour.
    @Test func aChargeTakenBackBeforeACheckReadItIsNeverGranted() throws {
        let (key, first) = try subscribed("2014", monthlyCharge("v1", start: at(2026, 3, 10)))
        #expect(try s.h.store.write { try $0.recordRefund(ProviderRefund(provider: "apple", kind: .charge, reference: "v2"), at: at(2026, 4, 10, 13)) })
        s.now = at(2026, 4, 10, 14)
        s.apple.answer("2014", .success(.charged(monthlyCharge("v2", start: at(2026, 4, 10)))))
        var out = s.issue(by: key, asserting: first)
        #expect(out.credential == nil)
        #expect(out.statement?.entries.contains { $0.entryType == .credit(.charge(chargeId: "v2")) } == false)
        s.now = s.now.adding(seconds: 1800)
        out = s.issue(by: key, asserting: first)
        #expect(out.credential == nil)
        #expect(s.apple.reads.count == 2)  // the purchase's read and the check's, nothing since
        let ledger = try s.checkedLedger(of: key)
        #expect(!ledger.contains { $0.entryType == .credit(.charge(chargeId: "v2")) })
        #expect(try s.h.store.read { r in try r.subscription(store: "apple", reference: "2014")?.latestChargeRevoked } == true)
    }

    @Test func aStoreThatDoesNotAnswerAfterCoverageIsProviderUnavailableWithTheHour() throws {
        let (key, first) = try subscribed("2005", monthlyCharge("m1", start: at(2026, 3, 10)))
        s.now = at(2026, 4, 10, 12)
        s.apple.answer("2005", .failure(SubscriptionRefusal(.providerUnavailable(retryAfter: nil), "timeout")))
        var out = s.issue(by: key, asserting: first)
        #expect(out.error == .providerUnavailable)
        #expect(out.response.retryAfter == 3600)
        s.now = s.now.adding(seconds: 900)
        out = s.issue(by: key, asserting: first)
        #expect(out.error == .providerUnavailable)
        #expect(out.response.retryAfter == 2700)
        #expect(s.apple.reads.count == 2)
        #expect(try s.checkedLedger(of: key).count == 2)
    }

    @Test func aStoreThatDoesNotAnswerDuringCoverageStillIssuesTheMonthDue() throws {
        let (key, first) = try subscribed("2006", monthlyCharge("y3", start: at(2026, 3, 10), months: 12))
        s.now = at(2026, 4, 10, 12)
        s.apple.answer("2006", .failure(SubscriptionRefusal(.providerUnavailable(retryAfter: nil), "timeout")))
        let out = s.issue(by: key, asserting: first)
        #expect(out.statement?.entries.map(\.entryType) == [.debit(.badge)])
        #expect(out.credential != nil && out.response.subscriptionState == .renewing)
        _ = try s.checkedLedger(of: key)
    }

    @Test func aChargeOfAnotherBadgeTypeStartsItsOwnRunAndThePurchaseFollowsIt() throws {
        let (key, first) = try subscribed("2007", monthlyCharge("s1", start: at(2026, 3, 10)))
        s.now = at(2026, 4, 10, 12)
        s.apple.answer("2007", .success(.charged(monthlyCharge("l1", start: at(2026, 4, 10, 11).adding(seconds: 1800), type: .legend))))
        let out = s.issue(by: key, asserting: first)
        let entries = try #require(out.statement?.entries)
        #expect(entries.map(\.entryType) == [.credit(.charge(chargeId: "l1")), .debit(.badge)])
        #expect(entries[0].balanceBadgeType == .legend && entries[0].balanceAnchorTs == at(2026, 4, 10, 11).adding(seconds: 1800))
        #expect(out.credential?.badgeType == .legend)
        _ = try s.checkedLedger(of: key)
        #expect(try s.h.store.read { try $0.purchase(key: key.publicKey.purchaseKeyText)?.badgeType } == .legend)
    }
}

extension RenewalCheckTests {
    /// Play answers a subscription expired too long ago to read with a 410, which its adapter throws
    /// as receipt_invalid: a renewal check takes that as the subscription having ended.
    @Test func aStoreCallingTheSubscriptionInvalidHasEndedIt() throws {
        let (key, first) = try subscribed("2008", monthlyCharge("y4", start: at(2026, 3, 10), months: 12))
        s.now = at(2026, 4, 10, 12)
        s.apple.answer("2008", .failure(SubscriptionRefusal(.receiptInvalid, "410")))
        let out = s.issue(by: key, asserting: first)
        #expect(out.statement?.entries.map(\.entryType) == [.debit(.refund)])
        #expect(out.credential == nil && out.response.subscriptionState == .ended)
        #expect(try s.h.store.read { try $0.subscription(store: "apple", reference: "2008")?.state } == "ended")
        _ = try s.checkedLedger(of: key)
    }
}

extension RenewalCheckTests {
    /// Inside the hour the last read answers: a charge it recorded whose period had not started is
    /// granted once it has, without asking the store again, and the read keeps its own time.
    @Test func theLastReadAnswersInsideTheHour() throws {
        let (key, first) = try subscribed("2009", monthlyCharge("r1", start: at(2026, 3, 10)))
        s.now = at(2026, 4, 10, 11).adding(seconds: 300)
        s.apple.answer("2009", .success(.charged(monthlyCharge("r2", start: at(2026, 4, 10, 11).adding(seconds: 1200)))))
        var out = s.issue(by: key, asserting: first)
        #expect(out.credential == nil && out.statement?.entries == [])
        s.now = at(2026, 4, 10, 11).adding(seconds: 1800)
        out = s.issue(by: key, asserting: first)
        let entries = try #require(out.statement?.entries)
        #expect(entries.map(\.entryType) == [.credit(.charge(chargeId: "r2")), .debit(.badge)])
        #expect(entries[0].createdAt == at(2026, 4, 10, 11).adding(seconds: 1200))
        #expect(out.credential != nil)
        #expect(s.apple.reads.count == 2)
        #expect(try s.h.store.read { try $0.subscription(store: "apple", reference: "2009")?.readAt }
                == at(2026, 4, 10, 11).adding(seconds: 300))
        _ = try s.checkedLedger(of: key)
    }
}
