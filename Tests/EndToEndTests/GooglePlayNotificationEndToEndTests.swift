import BadgeCore
import Crypto
import Foundation
import JSON
import Ledger
import Schema
import TestSupport
import Testing

/// Play real-time developer notifications (`POST /webhooks/google`, issue 11 item 6) on the
/// release binary over HTTP: Pub/Sub pushes authenticated by OIDC tokens google-auth signs
/// (Tests/Peers/google_auth_peer.py), Google's keys and Play served by ``FakeGoogle``. A voided
/// one-time purchase, a voided subscription charge and a revoked subscription reach the ledger at
/// once; forged tokens, another package and a JWKS outage are refused in their class.
@Suite(.serialized, .timeLimit(.minutes(5))) struct GooglePlayNotificationEndToEndTests {
    static let audience = "https://badges.example/webhooks/google"
    static let email = "pubsub-push@badge-test.iam.gserviceaccount.com"
    static let certs = "/oauth2/v3/certs"

    /// A Pub/Sub push body carrying `notification` as its base64 data.
    static func push(_ notification: JSONValue, messageId: String) -> [UInt8] {
        JSONValue.object(["message": ["data": .string(Base64URL.encodeStandard(notification.serialized())),
                                      "messageId": .string(messageId), "publishTime": "2026-12-01T05:00:00Z"],
                          "subscription": "projects/badge-test/subscriptions/play-rtdn"]).serialized()
    }

    static func notification(_ event: String, _ body: JSONObject, package: String = "chat.simplex.app") -> JSONValue {
        var n: JSONObject = ["version": "1.0", "packageName": .string(package), "eventTimeMillis": "1764565200000"]
        n[event] = .object(body)
        return .object(n)
    }

    @Test func voidedAndRevokedPurchasesReachTheLedgerAtOnceAndForgeriesAreRefused() async throws {
        let (pem, jwks) = try PushAuthenticationKeys.make(kid: "k-1")
        let (otherPEM, _) = try PushAuthenticationKeys.make(kid: "k-1")
        let now = Int64(Date().timeIntervalSince1970)
        let token = try PushAuthenticationKeys.token(pem, kid: "k-1", audience: Self.audience, email: Self.email, now: now)
        let forged = try PushAuthenticationKeys.token(otherPEM, kid: "k-1", audience: Self.audience, email: Self.email, now: now)

        let fake = FakeGoogle()
        // Google's keys are down at first.
        fake.script("GET", Self.certs, .json(503, "unavailable"))
        let oneTime = "pabeldfhmkjnhppdkmgapcfg.AO-J1OwE2E_rtdn_one_time-1"
        fake.script("GET", "purchases/products/badge_legend_03/tokens/\(oneTime)",
                    .json(200, #"{"purchaseTimeMillis":"1773140000000","purchaseState":0,"consumptionState":0,"acknowledgementState":1,"orderId":"GPA.31"}"#))
        let start = Timestamp(seconds: now - 3600)
        let legend = (product: "subscr_badge_legend_01", plan: "subscr-badge-legend-year-01")
        let voidedSubscription = "pabeldfhmkjnhppdkmgapcfg.AO-J1OwE2E_rtdn_voided-2"
        let revokedSubscription = "pabeldfhmkjnhppdkmgapcfg.AO-J1OwE2E_rtdn_revoked-3"
        for (subscriptionToken, order) in [(voidedSubscription, "GPA.32-1"), (revokedSubscription, "GPA.33-1")] {
            fake.script("GET", "purchases/subscriptionsv2/tokens/\(subscriptionToken)",
                        .json(200, GooglePlayEndToEndTests.subscription(acknowledged: true, product: legend.product, basePlan: legend.plan,
                                                                       expiry: addMonths(12, to: start), order: order)),
                        // Read again by the renewal check: Play has ended it.
                        .json(200, GooglePlayEndToEndTests.subscription(state: "SUBSCRIPTION_STATE_EXPIRED", acknowledged: true,
                                                                       product: legend.product, basePlan: legend.plan,
                                                                       expiry: Timestamp(seconds: now - 60), order: order)))
        }

        let outcome = try await onOwnThread {
            try fake.serve { base in try Self.run(base: base, fake: fake, token: token, forged: forged, jwks: jwks,
                                                  tokens: (oneTime, voidedSubscription, revokedSubscription)) }
        }
        for failure in outcome { Issue.record(Comment(rawValue: failure)) }
    }

    /// The service's side of the test, on a thread of its own; returns what did not hold.
    static func run(base: String, fake: FakeGoogle, token: String, forged: String, jwks: String,
                    tokens: (oneTime: String, voided: String, revoked: String)) throws -> [String] {
        var failures: [String] = []
        func check(_ condition: Bool, _ what: @autoclosure () -> String) { if !condition { failures.append(what()) } }
        let data = TemporaryDirectory("e2e-google-rtdn")
        let service = try GooglePlayEndToEndTests.service(fakeAt: base, in: data, extra: """
            push_audience = \(Self.audience)
            push_service_account = \(Self.email)
            push_jwks_url = \(base)\(Self.certs)
            """)
        defer { _ = service.stop() }
        func post(_ body: [UInt8], bearer: String? = token) throws -> HTTPReply {
            var headers = ["Content-Type": "application/json"]
            if let bearer { headers["Authorization"] = "Bearer " + bearer }
            return try HTTP.request("POST", "http://127.0.0.1:\(service.port)/webhooks/google", body: body, headers: headers)
        }
        func status(_ reply: HTTPReply) -> String { reply.json?["status"]?.stringValue ?? reply.text }
        let test = Self.push(Self.notification("testNotification", ["version": "1.0"]), messageId: "m-test")

        // Google's keys unavailable: 503, so Pub/Sub delivers again; after the failure floor they are fetched.
        let outage = try post(test)
        check(outage.status == 503, "JWKS outage: \(outage.status) \(outage.text)")
        fake.script("GET", Self.certs, .json(200, jwks, headers: ["Cache-Control": "public, max-age=3600"]))
        Thread.sleep(forTimeInterval: 5.2)
        let tested = try post(test)
        check(tested.status == 200 && status(tested) == "ignored", "testNotification: \(tested.text)")

        // Forgeries: 400, nothing written.
        let voidOneTime = Self.push(Self.notification("voidedPurchaseNotification",
                                                      ["purchaseToken": .string(tokens.oneTime), "orderId": "GPA.31", "productType": 2,
                                                       "refundType": 1]), messageId: "m-void-1")
        for (name, reply) in [("no token", try post(voidOneTime, bearer: nil)), ("another key", try post(voidOneTime, bearer: forged)),
                              ("another package", try post(Self.push(Self.notification("testNotification", [:], package: "com.example.other"),
                                                                     messageId: "m-other"))),
                              ("not a push", try post(Array(#"{"message":{}}"#.utf8)))] {
            check(reply.status == 400, "\(name): \(reply.status) \(reply.text)")
        }

        // A one-time product of three months, bought, then voided: the two unissued months debited at once.
        let cli = try CLIResult.run(["catalog", "set-product", "--store", "google", "--product", "badge_legend_03", "--type", "legend",
                                     "--months", "3", "--kind", "one-time", "--data", data.file("badge-data")],
                                    executable: try AppStoreEndToEndTests.release)
        check(cli.status == 0, "catalog: \(cli.stderr)")
        Thread.sleep(forTimeInterval: 1.1)
        let buyer = Ed25519PrivateKey()
        let bought = try GooglePlayEndToEndTests.buy(service, token: tokens.oneTime, product: "badge_legend_03", key: buyer)
        guard let boughtLast = bought.response?.statement?.entries.last else { return failures + ["one-time: \(bought.text)"] }
        let voided = try post(voidOneTime)
        check(voided.status == 200 && status(voided) == "applied", "voided one-time: \(voided.text)")
        let replayed = try post(voidOneTime)
        check(status(replayed) == "duplicate", "replayed messageId: \(replayed.text)")
        let afterVoid = try AppStoreNotificationEndToEndTests.issue(service, key: buyer, asserting: boughtLast)
        let voidRows = afterVoid.response?.statement?.entries ?? []
        check(voidRows.map(\.entryType) == [.debit(.refund)] && voidRows.map(\.changeMonths) == [-2], "after the void: \(afterVoid.text)")
        check(checkLedger(voidRows, after: boughtLast, purchaseBadgeType: .legend) == nil, "replica check after the void")

        // Voided before it was ever presented: recorded, so presenting the token is
        // receipt_invalid (Play is not asked: nothing is scripted for it).
        let early = "pabeldfhmkjnhppdkmgapcfg.AO-J1OwE2E_rtdn_early-4"
        let earlyVoid = try post(Self.push(Self.notification("voidedPurchaseNotification",
                                                             ["purchaseToken": .string(early), "orderId": "GPA.34", "productType": 2,
                                                              "refundType": 1]), messageId: "m-void-early"))
        check(earlyVoid.status == 200 && status(earlyVoid) == "applied", "voided before presented: \(earlyVoid.text)")
        let presented = try GooglePlayEndToEndTests.buy(service, token: early, product: "badge_legend_03", key: Ed25519PrivateKey())
        check(presented.status == 422 && presented.response?.errorCode == .receiptInvalid, "presented after its void: \(presented.text)")

        // A renewal order voided before any check read it: recorded, so no later read grants it
        // (what a check then does is RenewalCheckTests' `aChargeTakenBackBeforeACheckReadItIsNeverGranted`).
        let renewalVoid = try post(Self.push(Self.notification("voidedPurchaseNotification",
                                                               ["purchaseToken": .string(tokens.voided), "orderId": "GPA.32-1..0",
                                                                "productType": 1, "refundType": 1]), messageId: "m-void-renewal"))
        check(renewalVoid.status == 200 && status(renewalVoid) == "applied", "voided renewal order: \(renewalVoid.text)")

        // Two annual subscriptions: one has its charge voided, the other is revoked; each ends at once.
        for (name, subscriptionToken, event, body) in [
            ("voided subscription", tokens.voided, "voidedPurchaseNotification",
             ["purchaseToken": .string(tokens.voided), "orderId": "GPA.32-1", "productType": 1, "refundType": 1] as JSONObject),
            ("revoked subscription", tokens.revoked, "subscriptionNotification",
             ["version": "1.0", "notificationType": 12, "purchaseToken": .string(tokens.revoked)] as JSONObject),
        ] {
            let key = Ed25519PrivateKey()
            let subscribed = try GooglePlayEndToEndTests.buy(service, token: subscriptionToken, product: "subscr_badge_legend_01", key: key)
            guard let rows = subscribed.response?.statement?.entries, let last = rows.last else { failures.append("\(name): \(subscribed.text)"); continue }
            check(rows.map(\.changeMonths) == [12, -1], "\(name) bought: \(rows)")
            let ended = try post(Self.push(Self.notification(event, body), messageId: "m-\(name)"))
            check(ended.status == 200 && status(ended) == "applied", "\(name): \(ended.text)")
            let after = try AppStoreNotificationEndToEndTests.issue(service, key: key, asserting: last)
            let endRows = after.response?.statement?.entries ?? []
            check(endRows.map(\.entryType) == [.debit(.refund)] && endRows.map(\.changeMonths) == [-11], "\(name) after: \(after.text)")
            check(after.subscription == .ended && after.response?.credential == nil, "\(name) state: \(after.text)")
            check(checkLedger(endRows, after: last, purchaseBadgeType: .legend) == nil, "\(name): replica check")
        }
        // Another SUBSCRIPTION type is recorded and ignored.
        let renewed = try post(Self.push(Self.notification("subscriptionNotification",
                                                           ["version": "1.0", "notificationType": 2, "purchaseToken": .string(tokens.revoked)]),
                                         messageId: "m-renewed"))
        check(status(renewed) == "ignored", "SUBSCRIPTION_RENEWED: \(renewed.text)")

        let metrics = try HTTP.request("GET", "http://127.0.0.1:\(service.port)/metrics").text
        for (result, count) in [("retry_later", 1), ("refused", 4), ("applied", 5), ("duplicate", 1), ("ignored", 2)] {
            check(metrics.contains("route=\"webhook_google\",command=\"\",result=\"\(result)\"} \(count)"), "metrics \(result)")
        }
        let logs = service.accessLog + service.stderr
        for secret in [token, tokens.oneTime, tokens.voided, tokens.revoked] {
            check(!logs.contains(secret), "a token reached the log")
        }
        check(fake.received.filter { $0.route == Self.certs }.count == 2, "JWKS fetched \(fake.received.filter { $0.route == Self.certs }.count) times")
        return failures
    }
}
