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

    /// A purchase answer with `fields` replaced (JSON text of each value).
    static func purchase(_ fields: [String: String]) -> String {
        var object = (try! JSONValue.parse(Array(purchased.utf8))).objectValue!
        for (k, v) in fields { object[k] = try! JSONValue.parse(Array(v.utf8)) }
        return String(decoding: JSONValue.object(object).serialized(), as: UTF8.self)
    }

    /// A harness whose `[google]` points at `fake` (served at `base`).
    static func harness(_ fake: FakeGoogle, _ base: String, timeout: Double = 1, creditsTest: Bool = false) throws -> Harness {
        try Harness(googlePlay: { clock in
            let endpoint = GooglePlayEndpoint(packageName: fake.package, apiURL: base, tokenURL: base + "/token",
                                              timeoutSeconds: timeout, maxResponseBytes: 64 * 1024)
            let client = GooglePlayClient(endpoint: endpoint, key: try! ServiceAccountKey(json: Array(PeerServiceAccount.shared.keyJSON.utf8)),
                                          clock: { clock().seconds })
            return GooglePlayFunding(client: client, creditsTestPurchases: creditsTest, subscriptionChecks: PlayCheckLimiter(clock: clock))
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

    @Test func aOneTimePurchaseIsAcknowledgedCreditedReplayedAndRefusedToAnotherKey() throws {
        let fake = FakeGoogle()
        let token = "pabeldfhmkjnhppdkmgapcfg.AO-J1OwOneTime_1"
        fake.script("GET", Self.route(token), .json(200, Self.purchased))
        fake.script("POST", Self.route(token) + ":acknowledge", .json(200, ""))
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
}
