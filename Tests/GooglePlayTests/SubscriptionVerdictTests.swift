import BadgeCore
import GooglePlay
import Testing

/// `purchases.subscriptionsv2.get` answers through the spec's rule for a first purchase.
@Suite struct SubscriptionVerdictTests {
    static let now = RFC3339.parse("2026-12-01T00:00:00Z")!

    /// A subscription answer with one line item; `item` fields replace the defaults.
    static func answer(state: String = "SUBSCRIPTION_STATE_ACTIVE", extra: String = "", product: String = "subscr_badge_supporter_01",
                       basePlan: String? = "subscr-badge-supporter-month-02", expiry: String? = "2026-12-20T10:00:00Z",
                       phase: String? = #"{"basePrice":{}}"#, itemExtra: String = "", items: Int = 1) -> String {
        var item = [#""productId":"\#(product)""#, #""latestSuccessfulOrderId":"GPA.3369-2045-9223-68398""#,
                    #""autoRenewingPlan":{"autoRenewEnabled":true}"#]
        if let expiry { item.append(#""expiryTime":"\#(expiry)""#) }
        if let basePlan { item.append(#""offerDetails":{"basePlanId":"\#(basePlan)","offerTags":[]}"#) }
        if let phase { item.append(#""offerPhase":\#(phase)"#) }
        if !itemExtra.isEmpty { item.append(itemExtra) }
        let line = "{" + item.joined(separator: ",") + "}"
        let lines = Array(repeating: line, count: items).joined(separator: ",")
        return #"{"kind":"androidpublisher#subscriptionPurchaseV2","startTime":"2026-11-20T10:00:00Z","subscriptionState":"\#(state)","acknowledgementState":"ACKNOWLEDGEMENT_STATE_PENDING","lineItems":[\#(lines)]\#(extra)}"#
    }

    func first(_ json: String, product: String = "subscr_badge_supporter_01", now: Timestamp = now) throws(PlayRefusal) -> PlayCreditableCharge {
        try PlaySubscription.read(Array(json.utf8)).firstCharge(claimedProductID: product, products: .upstream, now: now)
    }
    func refusal(_ json: String, product: String = "subscr_badge_supporter_01", now: Timestamp = now) -> PlayRefusal? {
        do { _ = try first(json, product: product, now: now); return nil } catch { return error }
    }

    @Test func activeMonthlyChargeIsCreditedFromItsClippedStart() throws {
        let c = try first(Self.answer())
        #expect(c.grant == PlayGrant(badgeType: .supporter, months: 1))
        #expect(c.periodStart == RFC3339.parse("2026-11-20T10:00:00Z"))
        #expect(c.isRenewing)
        #expect(c.charge.orderID == "GPA.3369-2045-9223-68398")
    }

    @Test func annualLegendPlan() throws {
        let c = try first(Self.answer(product: "subscr_badge_legend_01", basePlan: "subscr-badge-legend-year-01",
                                      expiry: "2027-06-01T00:00:00Z"), product: "subscr_badge_legend_01")
        #expect(c.grant == PlayGrant(badgeType: .legend, months: 12))
        #expect(c.periodStart == RFC3339.parse("2026-06-01T00:00:00Z"))
    }

    @Test func cancelledStillRunsAndIsCredited() throws {
        let c = try first(Self.answer(state: "SUBSCRIPTION_STATE_CANCELED"))
        #expect(!c.isRenewing)
    }

    @Test func monthClippingLeavesLastDaysFundingNothing() throws {
        // Expiry 30 March: start is 28 February (clipped from 30 Feb), so the month from the start
        // ends 28 March; 29 March still lies in Play's period but funds nothing.
        let json = Self.answer(expiry: "2027-03-30T00:00:00Z")
        let c = try first(json, now: RFC3339.parse("2027-03-01T00:00:00Z")!)
        #expect(c.periodStart == RFC3339.parse("2027-02-28T00:00:00Z"))
        let r = refusal(json, now: RFC3339.parse("2027-03-29T00:00:00Z")!)
        #expect(r?.verdict == .paymentPending)
        #expect(r?.retry == .day)
    }

    @Test func pendingIsPaymentPendingWithAnHour() {
        let r = refusal(#"{"subscriptionState":"SUBSCRIPTION_STATE_PENDING","lineItems":[{"productId":"x"},{"productId":"y"}]}"#)
        #expect(r?.verdict == .paymentPending)
        #expect(r?.retry == .hour)
    }

    @Test func testPurchaseIsTestPurchase() {
        #expect(refusal(Self.answer(extra: #","testPurchase":{}"#))?.verdict == .testPurchase)
    }

    @Test func endedIsReceiptInvalid() {
        #expect(refusal(Self.answer(state: "SUBSCRIPTION_STATE_EXPIRED"))?.verdict == .receiptInvalid)
        #expect(refusal(Self.answer(state: "SUBSCRIPTION_STATE_EXPIRED", items: 0))?.verdict == .receiptInvalid)
        #expect(refusal(Self.answer(state: "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED", items: 0))?.verdict == .receiptInvalid)
    }

    @Test func trialAndIntroductoryPhasesAreNotCredited() {
        for phase in [#"{"freeTrial":{}}"#, #"{"introductoryPrice":{}}"#, #"{"prorationPeriod":{"originalOfferPhaseType":"FREE_TRIAL"}}"#] {
            let r = refusal(Self.answer(phase: phase))
            #expect(r?.verdict == .paymentPending, "\(phase)")
            #expect(r?.retry == .day)
        }
    }

    @Test func promotionCodesAreCredited() throws {
        _ = try first(Self.answer(itemExtra: #""signupPromotion":{"vanityCode":{"promotionCode":"SPRING"}}"#))
        _ = try first(Self.answer(phase: #"{"prorationPeriod":{"originalOfferPhaseType":"BASE"}}"#))
    }

    @Test func retryingPausedAndOverPeriodsArePendingForADay() {
        for state in ["SUBSCRIPTION_STATE_IN_GRACE_PERIOD", "SUBSCRIPTION_STATE_ON_HOLD", "SUBSCRIPTION_STATE_PAUSED"] {
            let r = refusal(Self.answer(state: state))
            #expect(r?.verdict == .paymentPending, "\(state)")
            #expect(r?.retry == .day)
        }
        let over = refusal(Self.answer(expiry: "2026-11-30T00:00:00Z"))
        #expect(over?.retry == .day)
    }

    @Test func periodNotStartedIsPendingForAnHour() {
        let r = refusal(Self.answer(expiry: "2027-02-01T00:00:00Z"))
        #expect(r?.verdict == .paymentPending)
        #expect(r?.retry == .hour)
    }

    @Test func aPlanNotSoldIsPendingForADay() {
        let r = refusal(Self.answer(basePlan: "subscr-badge-supporter-week-01"))
        #expect(r?.verdict == .paymentPending)
        #expect(r?.retry == .day)
    }

    @Test func basePlanSoldUnderAnotherProductIsInternal() {
        #expect(refusal(Self.answer(basePlan: "subscr-badge-legend-month-01"))?.verdict == .internal)
    }

    @Test func shapesThisServiceCannotCreditAreInternal() {
        #expect(refusal(Self.answer(state: "SUBSCRIPTION_STATE_FROZEN"))?.verdict == .internal)
        #expect(refusal(Self.answer(items: 2))?.verdict == .internal)
        #expect(refusal(Self.answer(items: 0))?.verdict == .internal)
        #expect(refusal(Self.answer(expiry: nil))?.verdict == .internal)
        #expect(refusal(Self.answer(basePlan: nil))?.verdict == .internal)
        #expect(refusal(Self.answer(product: ""))?.verdict == .internal)
        #expect(refusal(Self.answer(expiry: "next tuesday"))?.verdict == .internal)
        #expect(refusal(Self.answer(), product: "subscr_badge_legend_01")?.verdict == .internal)
        #expect(refusal("not json")?.verdict == .internal)
        #expect(refusal(#"{"lineItems":[]}"#)?.verdict == .internal)
    }
}
