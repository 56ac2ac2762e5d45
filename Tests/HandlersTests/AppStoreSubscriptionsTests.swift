import AppStore
import BadgeCore
import Foundation
import Handlers
import JSON
import Schema
import TestSupport
import Testing

/// The App Store subscription store read through the fake App Store Server API: the protocol's
/// state, the latest charge and the first-charge rule as the spec's purchaseBadge "Subscriptions"
/// and its App Store list word them, each item in its class. The fake starts, and reads run, on
/// threads of their own, never holding one of the test pool's few threads.
@Suite(.timeLimit(.minutes(5))) struct AppStoreSubscriptionsTests {
    let fake: FakeAppStore
    let store: AppStoreSubscriptions
    let now = Timestamp(seconds: Int64(Date().timeIntervalSince1970))
    static let day = 86_400_000

    init() async throws {
        fake = try await onOwnThread { try FakeAppStore() }
        store = try Self.store(fake, creditsSandbox: false)
    }

    static func store(_ fake: FakeAppStore, creditsSandbox: Bool) throws -> AppStoreSubscriptions {
        let key = try AppStoreAPIKey(p8: try fake.privateKeyPEM, keyId: fake.keyId, issuerId: fake.issuerId, bundleId: fake.bundleId)
        let roots = try #require(AppleRootCertificates(der: [try fake.rootDER]))
        return AppStoreSubscriptions(api: AppStoreServerAPI(
            key: key, verifier: AppStoreVerifier(roots: roots, bundleId: fake.bundleId, creditsSandbox: creditsSandbox),
            productionURL: fake.productionURL, sandboxURL: fake.sandboxURL, timeoutSeconds: 5))
    }

    var ms: Int { Int(now.seconds) * 1000 }

    /// A charge from `startDays` to `endDays` around now (days, negative in the past).
    func charge(_ startDays: Int, _ endDays: Int, product: String = "SUBSCR_BADGE_SUPPORTER_MONTH_01",
                id: String = "2000000600000099") -> JSONObject {
        ["transactionId": .string(id), "productId": .string(product),
         "purchaseDate": .number(JSONNumber(ms + startDays * Self.day)), "expiresDate": .number(JSONNumber(ms + endDays * Self.day))]
    }

    func read(_ id: String, status: Int = 1, transaction: JSONObject, renewal: JSONObject = [:]) async throws -> SubscriptionReading {
        try fake.script(id, status: status, transaction: transaction, renewal: renewal)
        let (store, now) = (store, now)
        let result = try await onOwnThread { () -> Result<SubscriptionReading, SubscriptionRefusal> in
            do throws(SubscriptionRefusal) { return .success(try store.read(reference: id, now: now)) } catch { return .failure(error) }
        }
        if case .failure(let error) = result { Issue.record("\(id): \(error)") }
        return try result.get()
    }

    func refusal(_ id: String) async throws -> SubscriptionRefusal.Class? {
        let (store, now) = (store, now)
        return try await onOwnThread { () -> SubscriptionRefusal.Class? in
            do throws(SubscriptionRefusal) {
                _ = try store.read(reference: id, now: now)
                return nil
            } catch { return error.kind }
        }
    }

    func chargeRefusal(_ reading: SubscriptionReading) -> SubscriptionRefusal.Class? {
        if case .failure(let refusal) = reading.charge { return refusal.kind }
        return nil
    }

    @Test func aRunningChargeIsGrantableFromItsPeriodStart() async throws {
        let reading = try await read("2000000600000001", transaction: charge(-1, 29, id: "2000000600000101"))
        #expect(store.name == "apple")
        #expect(reading.state == .renewing && reading.isConfirmed)
        #expect(reading.latestChargeId == "2000000600000101" && !reading.latestChargeRevoked)
        let granted = try reading.charge.get()
        #expect(granted.chargeId == "2000000600000101" && granted.productId == "SUBSCR_BADGE_SUPPORTER_MONTH_01")
        #expect(granted.badgeType == .supporter && granted.months == 1)
        #expect(granted.periodStart == Timestamp(seconds: Int64(ms / 1000 - 86_400)))
        #expect(granted.periodEnd == Timestamp(seconds: Int64(ms / 1000 + 29 * 86_400)))
        // An annual legend plan grants twelve months of legend.
        let annual = try await read("2000000600000002", transaction: charge(-3, 362, product: "SUBSCR_BADGE_LEGEND_YEAR_01")).charge.get()
        #expect(annual.badgeType == .legend && annual.months == 12)
        // confirm asks nothing of the App Store.
        let before = try fake.requests().count
        try store.confirm(reference: "2000000600000002", charge: annual)
        #expect(try fake.requests().count == before)
    }

    @Test func theStatesAsTheProtocolNamesThem() async throws {
        #expect(try await read("2000000600000010", transaction: charge(-1, 29), renewal: ["autoRenewStatus": 0]).state == .cancelled)
        // Cancelled still runs its paid period: grantable.
        #expect(try await read("2000000600000011", transaction: charge(-1, 29), renewal: ["autoRenewStatus": 0]).charge.get().months == 1)
        #expect(try await read("2000000600000012", status: 3, transaction: charge(-31, -1)).state == .billingRetry)
        #expect(try await read("2000000600000013", status: 4, transaction: charge(-1, 29)).state == .billingRetry)
        let expired = try await read("2000000600000014", status: 2, transaction: charge(-40, -10))
        #expect(expired.state == .ended && chargeRefusal(expired) == .paymentPending(retryAfter: SubscriptionRefusal.day))
        let revoked = try await read("2000000600000015", status: 5, transaction: charge(-1, 29))
        #expect(revoked.state == .ended && revoked.latestChargeRevoked)
        #expect(chargeRefusal(revoked) == .paymentPending(retryAfter: SubscriptionRefusal.day))
    }

    @Test func theFirstChargeRuleForTheAppStore() async throws {
        let day = SubscriptionRefusal.Class.paymentPending(retryAfter: SubscriptionRefusal.day)
        // A charge with a revocationDate: revoked, a day (a later charge could still come).
        var refunded = charge(-2, 28)
        refunded["revocationDate"] = .number(JSONNumber(ms - 3_600_000))
        let r = try await read("2000000600000020", transaction: refunded)
        #expect(r.latestChargeRevoked && r.state == .renewing && chargeRefusal(r) == day)
        // Any offer type.
        for (i, offer) in [1, 2, 3, 4].enumerated() {
            var offered = charge(-1, 29)
            offered["offerType"] = .number(JSONNumber(offer))
            #expect(chargeRefusal(try await read("200000060000003\(i)", transaction: offered)) == day, "offer \(offer)")
        }
        // A plan not sold here, and a one-time product's id on a subscription transaction.
        #expect(chargeRefusal(try await read("2000000600000040", transaction: charge(-1, 29, product: "SUBSCR_SOMETHING_ELSE"))) == day)
        #expect(chargeRefusal(try await read("2000000600000041", transaction: charge(-1, 29, product: "BADGE_SUPPORTER_01"))) == day)
        // A period over while the store still retries.
        #expect(chargeRefusal(try await read("2000000600000042", status: 3, transaction: charge(-31, -1))) == day)
        // The plan's months from the period start have run out though the period still runs.
        #expect(chargeRefusal(try await read("2000000600000043", transaction: charge(-35, 10))) == day)
        // A period that has not started yet: an hour.
        #expect(chargeRefusal(try await read("2000000600000044", transaction: charge(1, 31)))
                == .paymentPending(retryAfter: SubscriptionRefusal.hour))
        // A period that does not end after it starts: internal.
        #expect(chargeRefusal(try await read("2000000600000045", transaction: charge(-1, -1))) == .internal)
    }

    @Test func failedReadsInTheirClasses() async throws {
        // A 404 in both environments: unavailable, no retryAfter.
        #expect(try await refusal("2000000600000050") == .providerUnavailable(retryAfter: nil))
        try fake.script("2000000600000051", mode: "429", retryAfterSeconds: 600)
        // Read at the current time: Apple's Retry-After (a UNIX time in ms, 600 s on) less that time.
        // The fake stamps its answer later than `now`, by however long a loaded machine takes to
        // answer; the bound allows that wait, measured, and a second for rounding `now` down.
        let store = store
        let asked = Date()
        let late = try await onOwnThread { () -> SubscriptionRefusal.Class? in
            do throws(SubscriptionRefusal) {
                _ = try store.read(reference: "2000000600000051", now: Timestamp(seconds: Int64(Date().timeIntervalSince1970)))
                return nil
            } catch { return error.kind }
        }
        let waited = UInt32(Date().timeIntervalSince(asked).rounded(.up))
        if case .providerUnavailable(let after)? = late {
            #expect(after.map { (600...(601 + waited)).contains($0) } == true, "\(String(describing: after)) after \(waited) s")
        } else { Issue.record("429 not unavailable: \(String(describing: late))") }
        try fake.script("2000000600000052", mode: "401")
        #expect(try await refusal("2000000600000052") == .internal)
        try fake.script("2000000600000053", mode: "403")
        #expect(try await refusal("2000000600000053") == .internal)
        try fake.script("2000000600000054", mode: "500")
        #expect(try await refusal("2000000600000054") == .providerUnavailable(retryAfter: nil))
        try fake.script("2000000600000055", mode: "huge")
        #expect(try await refusal("2000000600000055") == .internal)
        // Sandbox: test_purchase, unless the deployment credits test purchases.
        try fake.script("2000000600000056", environment: "sandbox", transaction: charge(-1, 29))
        #expect(try await refusal("2000000600000056") == .testPurchase)
        let sandboxCrediting = try Self.store(fake, creditsSandbox: true)
        let now = now
        let months = try await onOwnThread { try sandboxCrediting.read(reference: "2000000600000056", now: now).charge.get().months }
        #expect(months == 1)
        // A family-shared subscription: receipt_invalid.
        var shared = charge(-1, 29)
        shared["inAppOwnershipType"] = "FAMILY_SHARED"
        try fake.script("2000000600000057", transaction: shared)
        #expect(try await refusal("2000000600000057") == .receiptInvalid)
        // Another app's bundle id in the signed transaction: internal.
        var other = charge(-1, 29)
        other["bundleId"] = "com.example.other"
        try fake.script("2000000600000058", transaction: other)
        #expect(try await refusal("2000000600000058") == .internal)
        // A status this service does not know: internal.
        try fake.script("2000000600000059", status: 7, transaction: charge(-1, 29))
        #expect(try await refusal("2000000600000059") == .internal)
    }
}
