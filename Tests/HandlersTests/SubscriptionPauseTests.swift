import BadgeCore
import Crypto
import Handlers
import Ledger
import Schema
import Storage
import TestSupport
import Testing

/// pauseBadge on a purchase a store subscription funds is refused (docs/protocol.md, Pause, rule
/// 9). A pause an earlier version recorded on one still ends at the renewal pass that resumes it;
/// those tests record it as that version did (nothing had run out at these pauses, so the pause
/// itself wrote no row). The whole ledger is checked as the client replica checks it.
@Suite struct SubscriptionPauseTests {
    let s: SubscriptionHarness
    init() throws { s = try SubscriptionHarness(at: at(2026, 3, 10)) }

    func subscribed(_ reference: String, _ charge: StoreCharge) throws -> (Ed25519PrivateKey, LedgerEntry) {
        s.apple.answer(reference, .success(.charged(charge)))
        let key = Ed25519PrivateKey()
        let out = try s.purchase(reference, by: key, masterKey: SecureRandom.bytes(32))
        return (key, try #require(out.entries?.last))
    }

    func pause(_ key: Ed25519PrivateKey) -> RPCOutcome {
        let request = RPCRequest(purchaseKey: key.publicKey.purchaseKeyText, command: .pauseBadge)
        return s.service.handle(body: request.json.serialized(), caller: .signer(key.publicKey))
    }

    /// A pause as an earlier version recorded it, at the test clock's time.
    func pauseRecordedBefore(_ key: Ed25519PrivateKey) throws {
        try s.h.store.write { w in
            try w.setPause(purchaseId: try #require(try w.purchase(key: key.publicKey.purchaseKeyText)).id, since: s.now)
        }
    }

    func pausedSince(_ key: Ed25519PrivateKey) throws -> Timestamp? {
        try s.h.store.read { r in try r.pausedSince(purchaseId: try #require(try r.purchase(key: key.publicKey.purchaseKeyText)).id) }
    }

    /// The store keeps charging a subscription: held months would run out of step with its periods,
    /// and its ordinary end would debit them as a refund. Refused, nothing written, store not asked.
    @Test func pauseBadgeOnASubscriptionIsRefused() throws {
        let (key, _) = try subscribed("4000", monthlyCharge("a0", start: at(2026, 3, 10), months: 12))
        let before = try s.checkedLedger(of: key)
        s.now = at(2026, 3, 20)
        #expect(pause(key).error == .badRequest)
        #expect(try pausedSince(key) == nil)
        #expect(try s.checkedLedger(of: key) == before)
        #expect(s.apple.reads.count == 1)
    }

    /// An annual plan paused in its first month holds its 11 months; resumed in August, the store
    /// still renewing, the held months run from the resume.
    @Test func anAnnualPlanPausedBeforeHoldsItsMonthsThroughThePause() throws {
        let (key, first) = try subscribed("4001", monthlyCharge("a1", start: at(2026, 3, 10), months: 12))
        s.now = at(2026, 3, 20)
        try pauseRecordedBefore(key)
        #expect(try pausedSince(key) == at(2026, 3, 20))
        #expect(s.apple.reads.count == 1)

        // Resumed 10 August 12:00: the store is asked (a month is due), the badge row ends the pause.
        s.now = at(2026, 8, 10, 12)
        let out = s.issue(by: key, asserting: first)
        let entries = try #require(out.statement?.entries)
        #expect(entries.map(\.entryType) == [.debit(.badge)])
        #expect(entries[0].wasPausedSince == at(2026, 3, 20))
        #expect(entries[0].balanceAnchorTs == at(2026, 8, 10, 12))
        #expect(entries[0].balanceStartTs == at(2026, 9, 10, 12))
        #expect(entries[0].balanceMonths == 10)
        #expect(out.credential?.expiry == Timestamp(CivilDate(year: 2026, month: 9, day: 15)))
        #expect(out.response.subscriptionState == .renewing)
        #expect(s.apple.reads.count == 2)
        #expect(try pausedSince(key) == nil)
        _ = try s.checkedLedger(of: key)
    }

    /// A subscription the store ended while paused: the resume refunds the held months, none lapsed.
    @Test func aSubscriptionEndedDuringAPauseRecordedBeforeIsRefundedAtTheResume() throws {
        let (key, first) = try subscribed("4002", monthlyCharge("a2", start: at(2026, 3, 10), months: 12))
        s.now = at(2026, 4, 1)
        try pauseRecordedBefore(key)
        s.now = at(2026, 9, 1)
        s.apple.answer("4002", .success(.refused(SubscriptionRefusal(.paymentPending(retryAfter: SubscriptionRefusal.day), "ended"),
                                                 state: .ended, latestChargeId: "a2")))
        let out = s.issue(by: key, asserting: first)
        let entries = try #require(out.statement?.entries)
        #expect(entries.map(\.entryType) == [.debit(.refund)])
        #expect(entries[0].changeMonths == -11 && entries[0].wasPausedSince == at(2026, 4, 1))
        #expect(out.credential == nil && out.response.subscriptionState == .ended)
        #expect(try pausedSince(key) == nil)
        _ = try s.checkedLedger(of: key)
    }

    /// A monthly plan holds nothing: the charge the store made during the pause is granted at the
    /// resume, its month running from there (the pause held it as it holds months).
    @Test func aMonthlyChargeMadeDuringThePauseIsGrantedAtTheResume() throws {
        let (key, first) = try subscribed("4003", monthlyCharge("m1", start: at(2026, 3, 10)))
        s.now = at(2026, 3, 25)
        try pauseRecordedBefore(key)
        s.now = at(2026, 4, 20, 12)
        s.apple.answer("4003", .success(.charged(monthlyCharge("m2", start: at(2026, 4, 10)))))
        let out = s.issue(by: key, asserting: first)
        let entries = try #require(out.statement?.entries)
        #expect(entries.map(\.entryType) == [.credit(.charge(chargeId: "m2")), .debit(.badge)])
        #expect(entries[0].wasPausedSince == at(2026, 3, 25))
        #expect(entries[0].createdAt == at(2026, 4, 20, 12))
        #expect(entries[0].balanceAnchorTs == at(2026, 4, 20, 12))
        #expect(entries[1].balanceStartTs == at(2026, 5, 20, 12))
        #expect(out.credential?.expiry == Timestamp(CivilDate(year: 2026, month: 5, day: 26)))
        #expect(try pausedSince(key) == nil)
        _ = try s.checkedLedger(of: key)
    }

    /// A resume the store answers with nothing to grant ends the pause and writes no row.
    @Test func aResumeWithNothingToGrantEndsThePauseWithoutARow() throws {
        let (key, first) = try subscribed("4004", monthlyCharge("r1", start: at(2026, 3, 10)))
        s.now = at(2026, 3, 25)
        try pauseRecordedBefore(key)
        s.now = at(2026, 4, 20)
        s.apple.answer("4004", .success(.refused(SubscriptionRefusal(.paymentPending(retryAfter: SubscriptionRefusal.day), "retrying"),
                                                 state: .billingRetry, latestChargeId: "r1")))
        let before = try s.checkedLedger(of: key)
        let out = s.issue(by: key, asserting: first)
        #expect(out.error == nil && out.credential == nil && out.response.subscriptionState == .billingRetry)
        #expect(try pausedSince(key) == nil)
        #expect(try s.checkedLedger(of: key) == before)
    }

    /// Restore moving a paused subscription: the old purchase's transferOut ends its pause.
    @Test func aTransferEndsThePauseOfThePurchaseItLeaves() throws {
        let (old, _) = try subscribed("4005", monthlyCharge("t1", start: at(2026, 3, 10), months: 12))
        s.now = at(2026, 4, 1)
        try pauseRecordedBefore(old)
        s.now = at(2026, 5, 1)
        let new = Ed25519PrivateKey()
        _ = try s.service.transferBySubscription(key: new.publicKey, masterKey: SecureRandom.bytes(32), store: "apple",
                                                 reference: "4005", presentedChargeId: "t1", now: s.now)
        let rows = try s.checkedLedger(of: old)
        #expect(rows.last?.entryType == .debit(.transferOut(toPurchaseKey: new.publicKey.purchaseKeyText)))
        #expect(rows.last?.changeMonths == -11 && rows.last?.wasPausedSince == at(2026, 4, 1))
        #expect(try pausedSince(old) == nil)

        // The old key, paused again: answered ended, nothing paused.
        let again = pause(old)
        #expect(again.error == nil && again.credential == nil && again.response.subscriptionState == .ended)
        #expect(try pausedSince(old) == nil)
    }
}
