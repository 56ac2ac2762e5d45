import BadgeCore
import Crypto
import Foundation
import GooglePlay
import Handlers
import JSON
import Ledger
import Schema
import Storage
import TestSupport
import Testing

/// `purchaseBadge` funded by `google` against the fake Google over HTTP on 127.0.0.1: the
/// one-time path, every item of the spec's Google Play list in its class, acknowledgement.
@Suite(.serialized) struct GooglePlayPurchaseTests {
    static let product = "badge_supporter_01"
    static let purchased = #"{"kind":"androidpublisher#productPurchase","purchaseTimeMillis":"1773140000000","purchaseState":0,"consumptionState":0,"acknowledgementState":0,"orderId":"GPA.1"}"#

    static func route(_ token: String, product: String = product) -> String { "purchases/products/\(product)/tokens/\(token)" }

    /// Scripts `fake` with a purchased, unacknowledged one-time `product` under `token`, and its acknowledgement.
    static func scriptPurchased(_ fake: FakeGoogle, token: String, product: String = product) {
        fake.script("GET", route(token, product: product), .json(200, purchased))
        fake.script("POST", route(token, product: product) + ":acknowledge", .json(200, ""))
    }

    /// A purchase answer with `fields` replaced (JSON text of each value).
    static func purchase(_ fields: [String: String]) -> String {
        var object = (try! JSONValue.parse(Array(purchased.utf8))).objectValue!
        for (k, v) in fields { object[k] = try! JSONValue.parse(Array(v.utf8)) }
        return String(decoding: JSONValue.object(object).serialized(), as: UTF8.self)
    }

    /// A harness whose `[google]` points at `fake` (served at `base`).
    static func harness(_ fake: FakeGoogle, _ base: String, timeout: Double = 1, creditsTest: Bool = false,
                        checksPerMinute: Int = PlayCheckBudget.checksPerMinute) throws -> Harness {
        try Harness(googlePlay: { clock in
            let endpoint = GooglePlayEndpoint(packageName: fake.package, apiURL: base, tokenURL: base + "/token",
                                              timeoutSeconds: timeout, maxResponseBytes: 64 * 1024)
            let client = GooglePlayClient(endpoint: endpoint, key: try! ServiceAccountKey(json: Array(PeerServiceAccount.shared.keyJSON.utf8)),
                                          clock: { clock().seconds })
            return GooglePlayFunding(client: client, creditsTestPurchases: creditsTest, subscriptionChecks: PlayCheckLimiter(limit: checksPerMinute, clock: clock))
        })
    }

    static func buy(_ h: Harness, token: String, product: String = product, by key: Ed25519PrivateKey = Ed25519PrivateKey(),
                    masterKey: [UInt8] = SecureRandom.bytes(32)) -> RPCOutcome {
        h.send(.purchaseBadge(masterKey: masterKey, payment: .google(productId: product, token: token), upgrade: nil), by: key)
    }

    static func retryAfter(_ o: RPCOutcome) -> UInt32? {
        if case .error(_, _, let r) = o.response { return r }
        return nil
    }

    /// A voided-purchase notice recorded between the purchase's read and its write (another
    /// thread's or instance's transaction) wins: nothing is credited.
    @Test func aVoidRecordedWhileTheCreditIsPreparedWins() throws {
        let fake = FakeGoogle()
        let token = "racedvoidtoken.AO-J1OwOneTime_9"
        Self.scriptPurchased(fake, token: token)
        try fake.serve { base in
            let h = try Self.harness(fake, base)
            let refund = ProviderRefund(provider: "google", kind: .payment,
                                        reference: Base64URL.encode(SHA256.hash(Array(token.utf8)), padded: false))
            let store = h.store, now = h.clock.now
            let racing = BeforeFirstWrite(inner: store) { _ = try? store.write { try $0.recordRefund(refund, at: now) } }
            let key = Ed25519PrivateKey()
            let out = h.send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .google(productId: Self.product, token: token),
                                            upgrade: nil), by: key, over: racing)
            #expect(out.error == .receiptInvalid, "\(out.response)")
            #expect(try h.ledger(of: key).isEmpty)
            #expect(try store.read { try $0.creditedPurchase(provider: "google", providerRef: refund.reference) } == nil)
        }
    }

    @Test func aOneTimePurchaseIsAcknowledgedCreditedReplayedAndRefusedToAnotherKey() throws {
        let fake = FakeGoogle()
        let token = "pabeldfhmkjnhppdkmgapcfg.AO-J1OwOneTime_1"
        Self.scriptPurchased(fake, token: token)
        try fake.serve { base in
            let h = try Self.harness(fake, base)
            let key = Ed25519PrivateKey(), master = SecureRandom.bytes(32)
            let first = Self.buy(h, token: token, by: key, masterKey: master)
            let statement = try #require(first.statement, "\(first.response)")
            #expect(statement.entries.map(\.changeMonths) == [1, -1])
            #expect(statement.entries.map(\.entryType) == [.credit(.payment(invoiceId: nil)), .debit(.badge)])
            #expect(first.credential?.badgeType == .supporter)
            guard case .badgeCredential(_, _, let receipt, let subscription) = first.response else { return }
            #expect(receipt != nil && subscription == nil)
            // Read, then acknowledged (never consumed), before anything was credited.
            #expect(fake.apiCalls.map { "\($0.method) \($0.route)" } == ["GET \(Self.route(token))", "POST \(Self.route(token)):acknowledge"])

            // Only the token's digest is recorded.
            let reference = Base64URL.encode(SHA256.hash(Array(token.utf8)), padded: false)
            #expect(try h.store.read { try $0.creditedPurchase(provider: "google", providerRef: reference) } != nil)
            #expect(try h.store.read { try $0.creditedPurchase(provider: "google", providerRef: token) } == nil)
            for name in ["badges.sqlite", "badges.sqlite-wal"] {
                let file = (try? Data(contentsOf: URL(fileURLWithPath: h.dir.file(name)))) ?? Data()
                #expect(file.range(of: Data(token.utf8)) == nil, "\(name)")
            }

            // The same request again: the same answer from the record, Play not asked.
            let again = Self.buy(h, token: token, by: key, masterKey: master)
            #expect(again.body == first.body)
            // Another key: receipt_used, Play not asked.
            #expect(Self.buy(h, token: token).error == .receiptUsed)
            #expect(fake.apiCalls.count == 2)
            // Never a token in what the service logged.
            #expect(!(h.providerFailures.withLock { $0 } + h.internalErrors.withLock { $0 }).contains { $0.contains(token) })
        }
    }

    @Test func anAcknowledgedOrConsumedPurchaseIsNotAcknowledgedAgainAndAPromoIsCredited() throws {
        let fake = FakeGoogle()
        let cases = ["t.acknowledged": Self.purchase(["acknowledgementState": "1"]),
                     "t.consumed": Self.purchase(["consumptionState": "1"]),
                     "t.promo": Self.purchase(["purchaseType": "1", "acknowledgementState": "1"])]
        for (token, body) in cases { fake.script("GET", Self.route(token), .json(200, body)) }
        try fake.serve { base in
            let h = try Self.harness(fake, base)
            for token in cases.keys.sorted() {
                let out = Self.buy(h, token: token)
                #expect(out.statement?.entries.map(\.changeMonths) == [1, -1], "\(token): \(out.response)")
            }
        }
        #expect(!fake.apiCalls.contains { $0.route.hasSuffix(":acknowledge") || $0.route.hasSuffix(":consume") })
    }

    @Test func aFailedAcknowledgementCreditsNothingAndSaysAcknowledging() throws {
        let fake = FakeGoogle()
        let token = "t.ack-fails"
        fake.script("GET", Self.route(token), .json(200, Self.purchased))
        fake.script("POST", Self.route(token) + ":acknowledge", .googleError(503, "backendError"), .googleError(403, "permissionDenied"),
                    .json(200, "{}"))
        try fake.serve { base in
            let h = try Self.harness(fake, base)
            let key = Ed25519PrivateKey(), master = SecureRandom.bytes(32)
            let unanswered = Self.buy(h, token: token, by: key, masterKey: master)
            #expect(unanswered.error == .providerUnavailable)
            let refused = Self.buy(h, token: token, by: key, masterKey: master)
            #expect(refused.error == .internal)
            #expect(try h.ledger(of: key).isEmpty)
            #expect(h.internalErrors.withLock { $0 }.contains { $0.contains("acknowledging") })
            #expect(h.providerFailures.withLock { $0 }.contains { $0.contains("acknowledging") })
            // Presented again once Play acknowledges: credited.
            #expect(Self.buy(h, token: token, by: key, masterKey: master).statement?.entries.count == 2)
        }
    }

    /// Every item of the spec's Google Play list for purchases.products.get and the token
    /// endpoint, each on a token of its own, answered in its class with nothing written.
    @Test func everyOneTimeItemOfTheSpecsGooglePlayListIsAnsweredInItsClass() throws {
        let fake = FakeGoogle()
        var cases: [(token: String, answer: FakeGoogle.Answer, expected: ErrorCode, retryAfter: UInt32?)] = [
            ("t.canceled", .json(200, Self.purchase(["purchaseState": "1"])), .receiptInvalid, nil),
            ("t.pending", .json(200, Self.purchase(["purchaseState": "2"])), .paymentPending, 3600),
            ("t.test", .json(200, Self.purchase(["purchaseType": "0"])), .testPurchase, nil),
            ("t.rewarded", .json(200, Self.purchase(["purchaseType": "2"])), .internal, nil),
            ("t.unknown-state", .json(200, Self.purchase(["purchaseState": "7"])), .internal, nil),
            ("t.other-product", .json(200, Self.purchase(["productId": #""badge_legend_01""#])), .internal, nil),
            ("t.quantity", .json(200, Self.purchase(["quantity": "2"])), .internal, nil),
            ("t.garbage", .json(200, "<html>not json"), .internal, nil),
            ("t.too-large", .json(200, "{\"x\":\"" + String(repeating: "a", count: 70_000) + "\"}"), .internal, nil),
            ("t.404", .googleError(404, "purchaseTokenNotFound"), .providerUnavailable, 60),
            ("t.400", .googleError(400, "invalid"), .providerUnavailable, 60),
            ("t.410", .googleError(410, "purchaseTokenNoLongerValid"), .providerUnavailable, 60),
            ("t.429", .googleError(429, "rateLimitExceeded"), .providerUnavailable, 60),
            ("t.500", .googleError(500, "backendError"), .providerUnavailable, 60),
            ("t.503", .googleError(503, "backendError"), .providerUnavailable, 60),
            ("t.403", .googleError(403, "permissionDenied"), .internal, nil),
            ("t.slow", .json(200, Self.purchased, delay: 2.5), .providerUnavailable, 60),
        ]
        // A 401 on every try: Google refusing this service's credentials, even with a fresh token.
        cases.append(("t.401", .googleError(401, "UNAUTHENTICATED"), .internal, nil))
        for c in cases { fake.script("GET", Self.route(c.token), c.answer) }
        try fake.serve { base in
            let h = try Self.harness(fake, base)
            for c in cases {
                let key = Ed25519PrivateKey()
                let out = Self.buy(h, token: c.token, by: key)
                #expect(out.error == c.expected, "\(c.token): \(out.response)")
                #expect(Self.retryAfter(out) == c.retryAfter, "\(c.token): \(out.response)")
                #expect(try h.ledger(of: key).isEmpty)
            }
        }
        #expect(!fake.apiCalls.contains { $0.route.hasSuffix(":acknowledge") })
    }

    @Test func aRefreshedAccessTokenAfterA401IsUsedOnce() throws {
        let fake = FakeGoogle()
        let token = "t.401-then-ok"
        fake.script("GET", Self.route(token), .googleError(401, "UNAUTHENTICATED"), .json(200, Self.purchase(["acknowledgementState": "1"])))
        try fake.serve { base in
            let h = try Self.harness(fake, base)
            #expect(Self.buy(h, token: token).statement?.entries.count == 2)
        }
        #expect(fake.apiCalls.map(\.authorization) == ["Bearer at-1", "Bearer at-2"])
    }

    @Test func theTokenEndpointsRefusalsAreInTheirClasses() throws {
        for (answer, expected) in [(FakeGoogle.Answer.googleError(500, "server_error"), ErrorCode.providerUnavailable),
                                   (.json(429, #"{"error":"rate_limit"}"#), .providerUnavailable),
                                   (.json(400, #"{"error":"invalid_grant"}"#), .internal),
                                   (.json(200, "not json"), .internal)] {
            let fake = FakeGoogle()
            fake.script("POST", "/token", answer)
            fake.script("GET", Self.route("t.any"), .json(200, Self.purchased))
            try fake.serve { base in
                let h = try Self.harness(fake, base)
                #expect(Self.buy(h, token: "t.any").error == expected, "\(answer.status)")
            }
            #expect(fake.apiCalls.isEmpty)
        }
    }

    /// Grammar refusals, an unpriced product, a key holding a badge: answered before Play is asked.
    @Test func theProductsComeFromTheDatabaseAsCatalogCommandsLeaveThem() throws {
        // The seeded table reads as the upstream map the verdicts were written against.
        #expect(StoreProducts.upstream.playMap == PlayProductMap.upstream)
        let fake = FakeGoogle()
        let token = "pabeldfhmkjnhppdkmgapcfg.AO-J1OwOneTime_9"
        let legend3 = Self.purchase([:]).replacingOccurrences(of: "GPA.1", with: "GPA.9")
        fake.script("GET", Self.route(token, product: "badge_legend_03"), .json(200, legend3))
        fake.script("POST", Self.route(token, product: "badge_legend_03") + ":acknowledge", .json(200, ""))
        try fake.serve { base in
            let h = try Self.harness(fake, base)
            try StoreProductAdmin(store: h.store).remove(store: "google", productId: Self.product, basePlanId: nil)
            try StoreProductAdmin(store: h.store).set(StoreProduct(store: "google", productId: "badge_legend_03", badgeType: .legend,
                                                                   months: 3, kind: .oneTime))
            h.clock.now = h.clock.now.adding(seconds: 2)  // past the products cache
            // A product no longer priced is refused without asking Play.
            #expect(Self.buy(h, token: "pabeldfhmkjnhppdkmgapcfg.AO-J1OwRemoved").error == .productUnavailable)
            #expect(fake.apiCalls.isEmpty)
            let added = Self.buy(h, token: token, product: "badge_legend_03")
            #expect(added.statement?.entries.map(\.changeMonths) == [3, -1], "\(added.response)")
            #expect(added.credential?.badgeType == .legend)
        }
    }

    @Test func refusalsBeforeAnyCall() throws {
        let fake = FakeGoogle()
        try fake.serve { base in
            let h = try Self.harness(fake, base)
            for product in ["Badge_supporter_01", "_badge", "", "badge/../x", "badge-supporter"] {
                #expect(Self.buy(h, token: "t.ok", product: product).error == .receiptInvalid, "\(product)")
            }
            for token in ["..", ".", "a/b", "a b", "ab%2F", String(repeating: "a", count: 4097), ""] {
                let out = Self.buy(h, token: token)
                #expect(out.error == .providerUnavailable, "\(token.prefix(10))")
                #expect(Self.retryAfter(out) == 60)
            }
            #expect(Self.buy(h, token: "t.ok", product: "badge_investor_01").error == .productUnavailable)
        }
        #expect(fake.received.isEmpty)
    }

    @Test func withoutGoogleSectionGoogleIsNotConfigured() throws {
        let h = try Harness()
        #expect(Self.buy(h, token: "t.ok").error == .providerNotConfigured)
    }

    @Test func aDevelopmentDeploymentCreditsALicenseTestersPurchase() throws {
        let fake = FakeGoogle()
        fake.script("GET", Self.route("t.test"), .json(200, Self.purchase(["purchaseType": "0"])))
        fake.script("POST", Self.route("t.test") + ":acknowledge", .json(200, ""))
        try fake.serve { base in
            let h = try Self.harness(fake, base, creditsTest: true)
            #expect(Self.buy(h, token: "t.test").statement?.entries.count == 2)
        }
    }

    // MARK: subscriptions

    static let subscriptionProduct = "subscr_badge_supporter_01"

    /// A subscriptionsv2 answer: active, monthly supporter, expiring 20 days after the harness's now.
    static func subscription(state: String = "SUBSCRIPTION_STATE_ACTIVE", acknowledged: Bool = false) -> String {
        """
        {"kind":"androidpublisher#subscriptionPurchaseV2","subscriptionState":"\(state)","startTime":"2026-02-28T10:00:00Z",
         "acknowledgementState":"\(acknowledged ? "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED" : "ACKNOWLEDGEMENT_STATE_PENDING")",
         "lineItems":[{"productId":"subscr_badge_supporter_01","expiryTime":"2026-03-30T10:00:00Z","latestSuccessfulOrderId":"GPA.7-1",
           "autoRenewingPlan":{"autoRenewEnabled":true},"offerDetails":{"basePlanId":"subscr-badge-supporter-month-02"},
           "offerPhase":{"basePrice":{}}}]}
        """
    }

    static func subscriptionRoute(_ token: String) -> String { "purchases/subscriptionsv2/tokens/\(token)" }
    static func acknowledgeRoute(_ token: String) -> String {
        "purchases/subscriptions/\(subscriptionProduct)/tokens/\(token):acknowledge"
    }

    @Test func aSubscriptionIsReadAcknowledgedAndCreditedItsChargeThenReplayed() throws {
        let fake = FakeGoogle()
        let token = "pabeldfhmkjnhppdkmgapcfg.AO-J1OwSubscription_1"
        fake.script("GET", Self.subscriptionRoute(token), .json(200, Self.subscription()))
        fake.script("POST", Self.acknowledgeRoute(token), .json(200, ""))
        try fake.serve { base in
            let h = try Self.harness(fake, base)
            let key = Ed25519PrivateKey(), master = SecureRandom.bytes(32)
            let first = Self.buy(h, token: token, product: Self.subscriptionProduct, by: key, masterKey: master)
            let statement = try #require(first.statement, "\(first.response)")
            #expect(statement.entries.first?.entryType == .credit(.charge(chargeId: "GPA.7-1")))
            #expect(statement.entries.last?.entryType == .debit(.badge))
            // Dated to the period start Play's month clipping derives: a month before the expiry.
            #expect(statement.entries.first?.createdAt == Timestamp(CivilDate(year: 2026, month: 2, day: 28), hour: 10))
            guard case .badgeCredential(_, _, let receipt, let subscription) = first.response else { return }
            #expect(receipt != nil && subscription == .renewing)
            #expect(fake.apiCalls.map { "\($0.method) \($0.route)" } == ["GET \(Self.subscriptionRoute(token))", "POST \(Self.acknowledgeRoute(token))"])
            // From the record: the same answer, and another key's receipt_used, without asking Play.
            #expect(Self.buy(h, token: token, product: Self.subscriptionProduct, by: key, masterKey: master).body == first.body)
            #expect(Self.buy(h, token: token, product: Self.subscriptionProduct).error == .receiptUsed)
            #expect(fake.apiCalls.count == 2)
        }
    }

    @Test func subscriptionRefusalsAreInTheirClassesAndHeldOffForTheHour() throws {
        let fake = FakeGoogle()
        fake.script("GET", Self.subscriptionRoute("s.gone"), .googleError(410, "subscriptionPurchaseNoLongerAvailable"))
        fake.script("GET", Self.subscriptionRoute("s.pending"), .json(200, Self.subscription(state: "SUBSCRIPTION_STATE_PENDING")))
        fake.script("GET", Self.subscriptionRoute("s.other"), .json(200, Self.subscription(acknowledged: true)))
        fake.script("GET", Self.subscriptionRoute("s.ack-refused"), .json(200, Self.subscription()))
        fake.script("POST", Self.acknowledgeRoute("s.ack-refused"), .googleError(403, "permissionDenied"))
        try fake.serve { base in
            let h = try Self.harness(fake, base)
            #expect(Self.buy(h, token: "s.gone", product: Self.subscriptionProduct).error == .receiptInvalid)
            let pending = Self.buy(h, token: "s.pending", product: Self.subscriptionProduct)
            #expect(pending.error == .paymentPending && Self.retryAfter(pending) == 3600)
            // A subscription Play reports for another product than the one claimed.
            #expect(Self.buy(h, token: "s.other", product: "subscr_badge_legend_01").error == .internal)
            let refused = Self.buy(h, token: "s.ack-refused", product: Self.subscriptionProduct)
            #expect(refused.error == .internal)
            #expect(h.internalErrors.withLock { $0 }.contains { $0.contains("acknowledging") })
            // Presented again within the hour: payment_pending with the time left, Play not asked.
            h.clock.now = h.clock.now.adding(seconds: 600)
            let calls = fake.apiCalls.count
            let held = Self.buy(h, token: "s.pending", product: Self.subscriptionProduct)
            #expect(held.error == .paymentPending && Self.retryAfter(held) == 3000)
            #expect(fake.apiCalls.count == calls)
        }
    }

    /// The 301st Play subscription check in a minute is rate_limited with the seconds left, and
    /// not held off: its hour is not taken, so the next minute asks Play about it.
    @Test func theThreeHundredAndFirstSubscriptionCheckInAMinuteIsRateLimited() throws {
        let fake = FakeGoogle()  // every token unscripted: Play answers 404, provider_unavailable
        try fake.serve { base in
            let h = try Self.harness(fake, base)
            for i in 0..<300 {
                let out = Self.buy(h, token: "s.n\(i)", product: Self.subscriptionProduct)
                #expect(out.error == .providerUnavailable, "\(i): \(out.response)")
            }
            h.clock.now = h.clock.now.adding(seconds: 20)
            let limited = Self.buy(h, token: "s.n300", product: Self.subscriptionProduct)
            #expect(limited.error == .rateLimited && Self.retryAfter(limited) == 40, "\(limited.response)")
            #expect(fake.apiCalls.count == 300)
            // A one-time product is not this path's: still read.
            fake.script("GET", Self.route("o.1"), .json(200, Self.purchase(["acknowledgementState": "1"])))
            #expect(Self.buy(h, token: "o.1").statement?.entries.count == 2)
            h.clock.now = h.clock.now.adding(seconds: 40)
            #expect(Self.buy(h, token: "s.n300", product: Self.subscriptionProduct).error == .providerUnavailable)
            #expect(fake.apiCalls.filter { $0.route.hasPrefix("purchases/subscriptionsv2") }.count == 301)
        }
    }

    /// A subscription credited is read once more to acknowledge it, and that counts.
    @Test func anAcknowledgementCountsAsACheck() throws {
        let fake = FakeGoogle()
        fake.script("GET", Self.subscriptionRoute("s.a"), .json(200, Self.subscription()))
        fake.script("POST", Self.acknowledgeRoute("s.a"), .json(200, ""))
        try fake.serve { base in
            let h = try Self.harness(fake, base, checksPerMinute: 2)
            #expect(Self.buy(h, token: "s.a", product: Self.subscriptionProduct).statement != nil)
            #expect(Self.buy(h, token: "s.b", product: Self.subscriptionProduct).error == .rateLimited)
        }
    }

    /// A renewal check that meets Play's 410 during an annual plan's coverage reads it as ended:
    /// what ran out lapses, the rest is refunded, the answer is `ended` with no credential.
    @Test func aRenewalCheckReadsA410AsEnded() throws {
        let fake = FakeGoogle()
        let annual = Self.subscription(acknowledged: true)
            .replacingOccurrences(of: "subscr-badge-supporter-month-02", with: "subscr-badge-supporter-year-01")
            .replacingOccurrences(of: "2026-03-30T10:00:00Z", with: "2027-02-28T10:00:00Z")
        fake.script("GET", Self.subscriptionRoute("s.annual"), .json(200, annual), .googleError(410, "subscriptionPurchaseNoLongerAvailable"))
        try fake.serve { base in
            let h = try Self.harness(fake, base)
            let key = Ed25519PrivateKey()
            let bought = Self.buy(h, token: "s.annual", product: Self.subscriptionProduct, by: key)
            #expect(bought.statement?.entries.first?.changeMonths == 12, "\(bought.response)")
            let last = try #require(bought.statement?.entries.last)
            h.clock.now = at(2026, 5, 1)
            let out = h.issue(by: key, asserting: last)
            #expect(out.credential == nil, "\(out.response)")
            guard case .badgeCredential(_, let statement, _, let subscription) = out.response else { return }
            #expect(subscription == .ended)
            #expect(statement.entries.last?.entryType == .debit(.refund))
            #expect(statement.entries.last?.balanceMonths == 0)
            #expect(fake.apiCalls.filter { $0.method == "GET" }.count == 2)
        }
    }

    /// transferBadge funded by `google`: a subscription moves to a fresh key by its token (Play read
    /// again, in the transfer's own hour); a one-time product is never moved.
    @Test func aPlaySubscriptionIsTransferredByItsTokenAndAOneTimeProductIsNot() throws {
        let fake = FakeGoogle()
        fake.script("GET", Self.subscriptionRoute("s.moving"), .json(200, Self.subscription(acknowledged: true)))
        try fake.serve { base in
            let h = try Self.harness(fake, base)
            let old = Ed25519PrivateKey(), new = Ed25519PrivateKey()
            #expect(Self.buy(h, token: "s.moving", product: Self.subscriptionProduct, by: old).statement != nil)
            h.clock.now = h.clock.now.adding(seconds: 600)
            let moved = h.send(.transferBadge(masterKey: SecureRandom.bytes(32),
                                              payment: .google(productId: Self.subscriptionProduct, token: "s.moving")), by: new)
            #expect(moved.statement?.entries.first?.entryType == .credit(.charge(chargeId: "GPA.7-1")), "\(moved.response)")
            #expect(moved.credential != nil)
            #expect(try h.ledger(of: old).last?.entryType == .debit(.transferOut(toPurchaseKey: new.publicKey.purchaseKeyText)))
            #expect(fake.apiCalls.count == 2)
            let badToken = h.send(.transferBadge(masterKey: SecureRandom.bytes(32),
                                                 payment: .google(productId: Self.subscriptionProduct, token: "..")), by: Ed25519PrivateKey())
            #expect(badToken.error == .providerUnavailable)
            #expect(fake.apiCalls.count == 2)
            // A one-time product is not moved: one no key holds (its purchaseBadge answer was lost)
            // is credited as by purchaseBadge; then, for another key, receipt_used without asking Play.
            Self.scriptPurchased(fake, token: "o.x")
            let oneTime = h.send(.transferBadge(masterKey: SecureRandom.bytes(32), payment: .google(productId: Self.product, token: "o.x")),
                                 by: Ed25519PrivateKey())
            #expect(oneTime.statement?.entries.map(\.entryType) == [.credit(.payment(invoiceId: nil)), .debit(.badge)], "\(oneTime.response)")
            let calls = fake.apiCalls.count
            let taken = h.send(.transferBadge(masterKey: SecureRandom.bytes(32), payment: .google(productId: Self.product, token: "o.x")),
                               by: Ed25519PrivateKey())
            #expect(taken.error == .receiptUsed)
            #expect(fake.apiCalls.count == calls)
        }
    }

    /// Every Play repeat by the key a token was credited to is answered from the record before the
    /// product is priced: after `catalog remove-product`, the one-time purchase, the subscription
    /// and the subscription moved by transferBadge each answer the same, and Play is not asked.
    @Test func repeatsAreAnsweredFromTheRecordAfterTheirProductIsRetired() throws {
        let fake = FakeGoogle()
        let oneTime = "retired.AO-J1OwOneTime_1", subscribed = "retired.AO-J1OwSubscription_1", moving = "retired.AO-J1OwMoving_1"
        Self.scriptPurchased(fake, token: oneTime)
        for token in [subscribed, moving] {
            fake.script("GET", Self.subscriptionRoute(token), .json(200, Self.subscription(acknowledged: true)))
        }
        try fake.serve { base in
            let h = try Self.harness(fake, base)
            let key = Ed25519PrivateKey(), master = SecureRandom.bytes(32)
            let bought = Self.buy(h, token: oneTime, by: key, masterKey: master)
            #expect(bought.credential != nil, "\(bought.response)")
            let subscriber = Ed25519PrivateKey(), subscriberMaster = SecureRandom.bytes(32)
            let subscription = Self.buy(h, token: subscribed, product: Self.subscriptionProduct, by: subscriber,
                                        masterKey: subscriberMaster)
            #expect(subscription.credential != nil, "\(subscription.response)")
            #expect(Self.buy(h, token: moving, product: Self.subscriptionProduct).credential != nil)
            h.clock.now = h.clock.now.adding(seconds: 600)
            let restorer = Ed25519PrivateKey(), restorerMaster = SecureRandom.bytes(32)
            let transfer = RPCCommand.transferBadge(masterKey: restorerMaster,
                                                    payment: .google(productId: Self.subscriptionProduct, token: moving))
            let moved = h.send(transfer, by: restorer)
            #expect(moved.credential != nil, "\(moved.response)")

            let calls = fake.apiCalls.count
            try StoreProductAdmin(store: h.store).remove(store: "google", productId: Self.product, basePlanId: nil)
            for plan in try StoreProducts(try h.store.read { try $0.storeProducts() }).of("google")
                where plan.productId == Self.subscriptionProduct {
                try StoreProductAdmin(store: h.store).remove(store: "google", productId: plan.productId, basePlanId: plan.basePlanId)
            }
            h.clock.now = h.clock.now.adding(seconds: 2)  // past the products cache
            #expect(Self.buy(h, token: oneTime, by: key, masterKey: master).body == bought.body)
            #expect(Self.buy(h, token: subscribed, product: Self.subscriptionProduct, by: subscriber,
                             masterKey: subscriberMaster).body == subscription.body)
            #expect(h.send(transfer, by: restorer).body == moved.body)
            // transferBadge by the one-time purchase's own key answers as its purchaseBadge repeat.
            let restoredOneTime = h.send(.transferBadge(masterKey: master, payment: .google(productId: Self.product, token: oneTime)),
                                         by: key)
            #expect(restoredOneTime.body == bought.body)
            #expect(fake.apiCalls.count == calls)
            // Another key is not answered from the record: the retired product is unavailable.
            #expect(Self.buy(h, token: oneTime).error == .productUnavailable)
        }
    }
}
