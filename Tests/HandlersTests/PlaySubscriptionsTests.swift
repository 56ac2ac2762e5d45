import BadgeCore
import Foundation
import GooglePlay
import Handlers
import Locking
import Schema
import Storage
import TestSupport
import Testing

/// The purchase path's budget of Play subscription checks, on a clock the test moves.
@Suite struct PlayCheckBudgetTests {
    let t0 = Timestamp(seconds: 1_773_140_000)

    @Test func theThreeHundredAndFirstCheckInAMinuteWaitsForTheMinutesEnd() {
        var budget = PlayCheckBudget()
        #expect(budget.limit == 300)
        for i in 0..<300 { #expect(budget.take(at: t0.adding(seconds: Int64(i / 10))) == nil, "\(i)") }
        #expect(budget.take(at: t0.adding(seconds: 30)) == 30)
        #expect(budget.take(at: t0.adding(seconds: 59)) == 1)
        // A new minute starts with the first check after the old one ran out.
        #expect(budget.take(at: t0.adding(seconds: 60)) == nil)
        #expect(budget.used == 1 && budget.windowStart == t0.adding(seconds: 60))
    }

    @Test func anAcknowledgementCountsEvenWithNothingLeft() {
        var budget = PlayCheckBudget(limit: 2)
        #expect(budget.take(at: t0) == nil)
        budget.count(at: t0)
        #expect(budget.used == 2)
        budget.count(at: t0.adding(seconds: 1))
        #expect(budget.used == 3)
        #expect(budget.take(at: t0.adding(seconds: 2)) == 58)
    }

    @Test func aClockThatGoesBackStartsAFreshMinute() {
        var budget = PlayCheckBudget(limit: 1)
        #expect(budget.take(at: t0) == nil)
        #expect(budget.take(at: t0) == 60)
        #expect(budget.take(at: t0.adding(seconds: -5)) == nil)
    }

    @Test func theLimiterReadsItsClock() throws {
        let now = LockedValueBox(t0)
        let limiter = PlayCheckLimiter(limit: 1, clock: { now.withLock { $0 } })
        #expect(try limiter.take() == nil)
        now.withLock { $0 = $0.adding(seconds: 45) }
        #expect(try limiter.take() == 15)
        now.withLock { $0 = $0.adding(seconds: 15) }
        #expect(try limiter.take() == nil)
    }

    /// Counted through a shared counter, the budget is kept per minute of the clock (the same
    /// minute for every instance): the refusal says the seconds to that minute's end.
    @Test func aSharedBudgetCountsPerClockMinute() throws {
        let counter = CountingMinutes()
        let start = Timestamp(seconds: 1_773_140_410)  // 10 s into a clock minute
        let now = LockedValueBox(start)
        let limiter = PlayCheckLimiter(limit: 2, clock: { now.withLock { $0 } }).counted(through: counter)
        #expect(try limiter.take() == nil)
        limiter.count()
        #expect(try limiter.take() == 50)
        #expect(counter.used.withLock { $0 } == [start.seconds / 60: 2])
        now.withLock { $0 = $0.adding(seconds: 50) }  // the next clock minute
        #expect(try limiter.take() == nil)
        #expect(PlayCheckBudget.secondsLeft(inClockMinuteOf: Timestamp(seconds: 1_773_140_400)) == 60)
        #expect(PlayCheckBudget.clockMinute(of: Timestamp(seconds: -1)) == -1)
    }

}

/// `PlaySubscriptions` against the fake Google: subscriptionsv2 answers as the seam's readings.
@Suite(.serialized) struct PlaySubscriptionsTests {
    static let token = "pabeldfhmkjnhppdkmgapcfg.AO-J1OwSub_1"
    static let route = "purchases/subscriptionsv2/tokens/\(token)"
    static let now = Timestamp(CivilDate(year: 2026, month: 3, day: 10), hour: 11)

    static func subscription(state: String = "SUBSCRIPTION_STATE_ACTIVE", expiry: String = "2026-04-05T10:00:00Z",
                             basePlan: String = "subscr-badge-supporter-month-02", phase: String = #""basePrice":{}"#,
                             acknowledged: Bool = false, autoRenew: Bool = true, extra: String = "") -> String {
        """
        {"kind":"androidpublisher#subscriptionPurchaseV2","subscriptionState":"\(state)","startTime":"2026-01-05T10:00:00Z",
         "acknowledgementState":"\(acknowledged ? "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED" : "ACKNOWLEDGEMENT_STATE_PENDING")"\(extra),
         "lineItems":[{"productId":"subscr_badge_supporter_01","expiryTime":"\(expiry)","latestSuccessfulOrderId":"GPA.3369-2045..2",
           "autoRenewingPlan":{"autoRenewEnabled":\(autoRenew)},"offerDetails":{"basePlanId":"\(basePlan)"},"offerPhase":{\(phase)}}]}
        """
    }

    static func withStore<T>(_ fake: FakeGoogle, claimed: String? = nil, confirms: LockedValueBox<Int> = LockedValueBox(0),
                             _ body: (PlaySubscriptions) throws -> T) throws -> T {
        try fake.serve { base in
            let endpoint = GooglePlayEndpoint(packageName: fake.package, apiURL: base, tokenURL: base + "/token", timeoutSeconds: 2)
            let client = GooglePlayClient(endpoint: endpoint, key: try ServiceAccountKey(json: Array(PeerServiceAccount.shared.keyJSON.utf8)),
                                          clock: { now.seconds })
            return try body(PlaySubscriptions(client: client, products: .upstream, claimedProductID: claimed,
                                              beforeConfirm: { confirms.withLock { $0 += 1 } }))
        }
    }

    @Test func aRenewingChargeReadsAsAStoreChargeAndIsAcknowledgedForItsProduct() throws {
        let fake = FakeGoogle()
        fake.script("GET", Self.route, .json(200, Self.subscription()))
        fake.script("POST", "purchases/subscriptions/subscr_badge_supporter_01/tokens/\(Self.token):acknowledge", .json(200, ""))
        let confirms = LockedValueBox(0)
        try Self.withStore(fake, claimed: "subscr_badge_supporter_01", confirms: confirms) { store in
            #expect(store.name == "google")
            let reading = try store.read(reference: Self.token, now: Self.now)
            #expect(reading.state == .renewing && reading.latestChargeId == "GPA.3369-2045..2" && !reading.isConfirmed)
            #expect(!reading.latestChargeRevoked)
            let charge = try reading.charge.get()
            // Play's month clipping: a month back from 5 April.
            #expect(charge == StoreCharge(chargeId: "GPA.3369-2045..2", productId: "subscr_badge_supporter_01", badgeType: .supporter,
                                          months: 1, periodStart: Timestamp(CivilDate(year: 2026, month: 3, day: 5), hour: 10),
                                          periodEnd: Timestamp(CivilDate(year: 2026, month: 4, day: 5), hour: 10)))
            try store.confirm(reference: Self.token, charge: charge)
        }
        #expect(confirms.withLock { $0 } == 1)
        #expect(fake.apiCalls.map(\.method) == ["GET", "POST"])
    }

    @Test func statesMapToTheProtocolsAndRefusalsToTheirClasses() throws {
        let fake = FakeGoogle()
        let cases: [(String, SubscriptionState, SubscriptionRefusal.Class?)] = [
            (Self.subscription(autoRenew: false), .cancelled, nil),
            (Self.subscription(state: "SUBSCRIPTION_STATE_CANCELED", acknowledged: true), .cancelled, nil),
            (Self.subscription(state: "SUBSCRIPTION_STATE_IN_GRACE_PERIOD"), .billingRetry, .paymentPending(retryAfter: 86_400)),
            (Self.subscription(state: "SUBSCRIPTION_STATE_ON_HOLD"), .billingRetry, .paymentPending(retryAfter: 86_400)),
            (Self.subscription(state: "SUBSCRIPTION_STATE_EXPIRED"), .ended, .receiptInvalid),
            (Self.subscription(state: "SUBSCRIPTION_STATE_PENDING"), .renewing, .paymentPending(retryAfter: 3600)),
            (Self.subscription(phase: #""freeTrial":{}"#), .renewing, .paymentPending(retryAfter: 86_400)),
            (Self.subscription(basePlan: "subscr-badge-supporter-week-01"), .renewing, .paymentPending(retryAfter: 86_400)),
            (Self.subscription(basePlan: "subscr-badge-legend-month-01"), .renewing, .internal),
            (Self.subscription(extra: #","testPurchase":{}"#), .renewing, .testPurchase),
            (Self.subscription(expiry: "2026-03-10T10:00:00Z"), .renewing, .paymentPending(retryAfter: 86_400)),
        ]
        for (i, c) in cases.enumerated() { fake.script("GET", "purchases/subscriptionsv2/tokens/t.\(i)", .json(200, c.0)) }
        try Self.withStore(fake) { store in
            for (i, c) in cases.enumerated() {
                let reading = try store.read(reference: "t.\(i)", now: Self.now)
                #expect(reading.state == c.1, "\(i)")
                switch reading.charge {
                case .success: #expect(c.2 == nil, "\(i)")
                case .failure(let refusal): #expect(refusal.kind == c.2, "\(i): \(refusal)")
                }
            }
        }
    }

    @Test func aFailedReadThrowsInItsClassAnd410IsReceiptInvalid() throws {
        let fake = FakeGoogle()
        let cases: [(FakeGoogle.Answer, SubscriptionRefusal.Class)] = [
            (.googleError(410, "subscriptionPurchaseNoLongerAvailable"), .receiptInvalid),
            (.googleError(404, "notFound"), .providerUnavailable(retryAfter: nil)),
            (.googleError(429, "rateLimitExceeded"), .providerUnavailable(retryAfter: nil)),
            (.googleError(503, "backendError"), .providerUnavailable(retryAfter: nil)),
            (.googleError(403, "permissionDenied"), .internal),
            (.json(200, "garbage"), .internal),
            (.json(200, #"{"subscriptionState":"SUBSCRIPTION_STATE_SOMETHING"}"#), .internal),
        ]
        for (i, c) in cases.enumerated() { fake.script("GET", "purchases/subscriptionsv2/tokens/t.\(i)", c.0) }
        fake.script("POST", "purchases/subscriptions/subscr_badge_supporter_01/tokens/t.ack:acknowledge", .googleError(500, "backendError"))
        let charge = StoreCharge(chargeId: "GPA.1", productId: "subscr_badge_supporter_01", badgeType: .supporter, months: 1,
                                 periodStart: Self.now, periodEnd: Self.now.adding(seconds: 86_400 * 30))
        let refusals: [SubscriptionRefusal?] = try Self.withStore(fake) { store in
            var found: [SubscriptionRefusal?] = []
            for i in cases.indices {
                do { _ = try store.read(reference: "t.\(i)", now: Self.now); found.append(nil) } catch { found.append(error as? SubscriptionRefusal) }
            }
            do { try store.confirm(reference: "t.ack", charge: charge); found.append(nil) } catch { found.append(error as? SubscriptionRefusal) }
            // A token this service will not send never reaches Play.
            do { _ = try store.read(reference: "..", now: Self.now); found.append(nil) } catch { found.append(error as? SubscriptionRefusal) }
            return found
        }
        for (i, c) in cases.enumerated() { #expect(refusals[i]?.kind == c.1, "\(i)") }
        let failed = refusals[cases.count]
        #expect(failed?.kind == .providerUnavailable(retryAfter: nil))
        #expect(failed?.reason.contains("acknowledging") == true)
        #expect(refusals[cases.count + 1]?.kind == .providerUnavailable(retryAfter: nil))
        #expect(!fake.apiCalls.contains { $0.route.contains("..") })
    }
}

/// An in-memory ``SharedMinuteCounter``, as the database keeps it.
final class CountingMinutes: SharedMinuteCounter {
    let used = LockedValueBox<[Int64: Int]>([:])

    func takeOne(minute: Int64, limit: Int) throws -> Bool {
        used.withLock { counts in
            guard counts[minute, default: 0] < limit else { return false }
            counts[minute, default: 0] += 1
            return true
        }
    }

    func countOne(minute: Int64) throws {
        used.withLock { $0[minute, default: 0] += 1 }
    }
}

