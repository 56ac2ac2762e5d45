import BadgeCore
import Crypto
import Foundation
import JSON
import Ledger
import Schema
import TestSupport
import Testing

/// App Store Server Notifications V2 (`POST /webhooks/apple`, issue 10 item 7) on the release
/// binary over HTTP: notifications signed with the fake's test PKI refund a one-time purchase and
/// end an annual subscription at once, and a refund of a transaction not presented yet makes it
/// receipt_invalid; a forged chain, another bundle, a forged inner
/// transaction and a garbage body are refused 400 and counted; a replayed UUID changes nothing;
/// the statement the client gets afterwards passes the client replica's checks.
@Suite(.serialized, .timeLimit(.minutes(5))) struct AppStoreNotificationEndToEndTests {
    static let day = 86_400_000

    /// A transaction payload of `product` signed as Apple would, its period around `nowMs` (days).
    static func transaction(_ fake: FakeAppStore, id: String, original: String, product: String, type: String, nowMs: Int,
                            startDays: Int = -1, endDays: Int? = nil, revokedMs: Int? = nil,
                            bundle: String? = nil, environment: String = "Production") -> JSONObject {
        var t: JSONObject = [
            "transactionId": .string(id), "originalTransactionId": .string(original), "bundleId": .string(bundle ?? fake.bundleId),
            "productId": .string(product), "purchaseDate": .number(JSONNumber(nowMs + startDays * day)), "quantity": 1,
            "type": .string(type), "inAppOwnershipType": "PURCHASED", "signedDate": .number(JSONNumber(nowMs)),
            "environment": .string(environment),
        ]
        if let endDays { t["expiresDate"] = .number(JSONNumber(nowMs + endDays * day)) }
        if let revokedMs { t["revocationDate"] = .number(JSONNumber(revokedMs)) }
        return t
    }

    /// The POST body Apple sends: `{"signedPayload": …}` of a V2 notification carrying `signedTransaction`.
    static func notification(_ type: String, uuid: String, signedTransaction: String?, bundle: String, nowMs: Int,
                             environment: String = "Production", sign: (JSONValue) throws -> String) throws -> [UInt8] {
        var data: JSONObject = ["environment": .string(environment), "appAppleId": 1_234_567_890, "bundleId": .string(bundle),
                                "bundleVersion": "1"]
        if let signedTransaction { data["signedTransactionInfo"] = .string(signedTransaction) }
        let payload: JSONValue = ["notificationType": .string(type), "notificationUUID": .string(uuid), "version": "2.0",
                                  "signedDate": .number(JSONNumber(nowMs)), "data": .object(data)]
        return JSONValue.object(["signedPayload": .string(try sign(payload))]).serialized()
    }

    static func post(_ service: ServiceProcess, _ body: [UInt8]) throws -> HTTPReply {
        try HTTP.request("POST", "http://127.0.0.1:\(service.port)/webhooks/apple", body: body,
                         headers: ["Content-Type": "application/json"])
    }

    static func issue(_ service: ServiceProcess, key: Ed25519PrivateKey, asserting last: LedgerEntry) throws -> HTTPReply {
        try HTTP.rpc(service, HTTP.envelope(["type": "issueBadge", "balance": ["lastEntry": last.json]], key: key), key: key)
    }

    @Test func refundsAndRevocationsReachTheLedgerAtOnceAndForgeriesAreRefused() async throws {
        let fake = try await onOwnThread { try FakeAppStore() }
        let data = TemporaryDirectory("e2e-apple-notifications")
        let service = try await onOwnThread { try AppStoreSubscriptionEndToEndTests.service(fake, in: data) }
        defer { _ = service.stop() }
        let nowMs = Int(Date().timeIntervalSince1970) * 1000
        let sign: @Sendable (JSONValue) throws -> String = { try fake.sign($0) }

        // A one-time product of three months, added with the catalog command.
        let cli = try CLIResult.run(["catalog", "set-product", "--store", "apple", "--product", "BADGE_LEGEND_03", "--type", "legend",
                                     "--months", "3", "--kind", "one-time", "--data", data.file("badge-data")],
                                    executable: try AppStoreEndToEndTests.release)
        #expect(cli.status == 0, "\(cli.stderr)")
        try await Task.sleep(for: .milliseconds(1100))
        let oneTime = Self.transaction(fake, id: "2000000700000001", original: "2000000700000001", product: "BADGE_LEGEND_03",
                                       type: "Consumable", nowMs: nowMs)
        let key = Ed25519PrivateKey()
        let bought = try await onOwnThread {
            try AppStoreEndToEndTests.purchase(service, jws: try fake.sign(.object(oneTime)), key: key, masterKey: SecureRandom.bytes(32))
        }
        let boughtRows = try #require(bought.response?.statement?.entries, "\(bought.text)")
        #expect(boughtRows.map(\.changeMonths) == [3, -1])
        let boughtLast = try #require(boughtRows.last)

        // Forgeries: another PKI's chain, another bundle, a genuine payload around a forged
        // transaction, a body that is no notification. Nothing written; a body that cannot be a
        // notification is 400, and a refusal that may be this service's own (the roots configured
        // do not hold the chain, another bundle id) 503, as Apple may not deliver again after a 4xx.
        let other = TemporaryDirectory("e2e-apple-notifications-other-pki")
        try PeerPython.run(script: "appstore_peer.py", arguments: ["pki", other.path])
        let signOther: @Sendable (JSONValue) throws -> String = { payload in
            String(decoding: try PeerPython.run(script: "appstore_peer.py", arguments: ["sign", other.path],
                                                input: Data(payload.serialized())), as: UTF8.self)
        }
        var refunded = oneTime
        refunded["revocationDate"] = .number(JSONNumber(nowMs - 60_000))
        let refundedJWS = try fake.sign(.object(refunded))
        let forgedChain = try Self.notification("REFUND", uuid: "uuid-forged-chain", signedTransaction: try signOther(.object(refunded)),
                                                bundle: fake.bundleId, nowMs: nowMs, sign: signOther)
        let anotherBundle = try Self.notification("REFUND", uuid: "uuid-other-bundle", signedTransaction: refundedJWS,
                                                  bundle: "com.example.other", nowMs: nowMs, sign: sign)
        let forgedInner = try Self.notification("REFUND", uuid: "uuid-forged-inner", signedTransaction: try signOther(.object(refunded)),
                                                bundle: fake.bundleId, nowMs: nowMs, sign: sign)
        for (name, body, status) in [("forged chain", forgedChain, 503), ("another bundle", anotherBundle, 503),
                                     ("forged transaction", forgedInner, 503), ("not a notification", Array(#"{"signed":"x"}"#.utf8), 400),
                                     ("three parts of garbage", Array(#"{"signedPayload":"a.b.c"}"#.utf8), 400)] {
            let reply = try await onOwnThread { try Self.post(service, body) }
            #expect(reply.status == status, "\(name): \(reply.status) \(reply.text)")
        }
        let untouched = try await onOwnThread { try Self.issue(service, key: key, asserting: boughtLast) }
        #expect(untouched.response?.statement?.entries == [], "\(untouched.text)")

        // The genuine refund: the two unissued months debited at once; the same UUID again changes nothing.
        let refund = try Self.notification("REFUND", uuid: "uuid-refund-one-time", signedTransaction: refundedJWS,
                                           bundle: fake.bundleId, nowMs: nowMs, sign: sign)
        let applied = try await onOwnThread { try Self.post(service, refund) }
        #expect(applied.status == 200 && applied.json?["status"] == "applied", "\(applied.text)")
        let replayed = try await onOwnThread { try Self.post(service, refund) }
        #expect(replayed.status == 200 && replayed.json?["status"] == "duplicate", "\(replayed.text)")
        let afterRefund = try await onOwnThread { try Self.issue(service, key: key, asserting: boughtLast) }
        let refundRows = try #require(afterRefund.response?.statement?.entries, "\(afterRefund.text)")
        #expect(refundRows.map(\.entryType) == [.debit(.refund)] && refundRows.map(\.changeMonths) == [-2], "\(refundRows)")
        #expect(refundRows.last?.balanceMonths == 0)
        // The client replica accepts what it is sent.
        #expect(checkLedger(refundRows, after: boughtLast, purchaseBadgeType: .legend) == nil)

        // Refunded before it was ever presented: the transaction the app kept, signed before the
        // refund, carries no revocationDate, yet the verified REFUND was recorded, so it is
        // receipt_invalid and credits nothing.
        let kept = Self.transaction(fake, id: "2000000700000002", original: "2000000700000002", product: "BADGE_LEGEND_03",
                                    type: "Consumable", nowMs: nowMs)
        let keptJWS = try fake.sign(.object(kept))
        var keptRefunded = kept
        keptRefunded["revocationDate"] = .number(JSONNumber(nowMs - 30_000))
        let early = try Self.notification("REFUND", uuid: "uuid-refund-unpresented", signedTransaction: try fake.sign(.object(keptRefunded)),
                                          bundle: fake.bundleId, nowMs: nowMs, sign: sign)
        let recorded = try await onOwnThread { try Self.post(service, early) }
        #expect(recorded.status == 200 && recorded.json?["status"] == "applied", "\(recorded.text)")
        let presented = try await onOwnThread {
            try AppStoreEndToEndTests.purchase(service, jws: keptJWS, key: Ed25519PrivateKey(), masterKey: SecureRandom.bytes(32))
        }
        #expect(presented.status == 422 && presented.response?.errorCode == .receiptInvalid, "\(presented.text)")

        // An annual subscription: credited its twelve months, one issued; the REFUND of that
        // charge ends the coverage at once.
        let original = "2000000710000001", charge = "2000000710000009"
        let annual = Self.transaction(fake, id: charge, original: original, product: "SUBSCR_BADGE_SUPPORTER_YEAR_01",
                                      type: "Auto-Renewable Subscription", nowMs: nowMs, endDays: 364)
        var scripted = annual
        for field in ["originalTransactionId", "bundleId", "type", "quantity", "inAppOwnershipType", "signedDate", "environment"] {
            scripted[field] = nil
        }
        try fake.script(original, transaction: scripted)
        let subscriber = Ed25519PrivateKey()
        let subscribed = try await onOwnThread {
            try AppStoreEndToEndTests.purchase(service, jws: try fake.sign(.object(annual)), key: subscriber, masterKey: SecureRandom.bytes(32))
        }
        let subscribedRows = try #require(subscribed.response?.statement?.entries, "\(subscribed.text)")
        #expect(subscribedRows.map(\.changeMonths) == [12, -1])
        let subscribedLast = try #require(subscribedRows.last)

        // A type this service does not act on: 200, ignored, nothing written.
        var revokedCharge = annual
        revokedCharge["revocationDate"] = .number(JSONNumber(nowMs - 60_000))
        let revokedJWS = try fake.sign(.object(revokedCharge))
        let renewed = try Self.notification("DID_RENEW", uuid: "uuid-did-renew", signedTransaction: try fake.sign(.object(annual)),
                                            bundle: fake.bundleId, nowMs: nowMs, sign: sign)
        let ignored = try await onOwnThread { try Self.post(service, renewed) }
        #expect(ignored.status == 200 && ignored.json?["status"] == "ignored", "\(ignored.text)")

        let subscriptionRefund = try Self.notification("REFUND", uuid: "uuid-refund-subscription", signedTransaction: revokedJWS,
                                                       bundle: fake.bundleId, nowMs: nowMs, sign: sign)
        let ended = try await onOwnThread { try Self.post(service, subscriptionRefund) }
        #expect(ended.status == 200 && ended.json?["status"] == "applied", "\(ended.text)")
        // Apple now reports the subscription revoked; the renewal check finds the ledger already refunded.
        var revokedScript = scripted
        revokedScript["revocationDate"] = .number(JSONNumber(nowMs - 60_000))
        try fake.script(original, status: 5, transaction: revokedScript)
        let afterEnd = try await onOwnThread { try Self.issue(service, key: subscriber, asserting: subscribedLast) }
        let endRows = try #require(afterEnd.response?.statement?.entries, "\(afterEnd.text)")
        #expect(endRows.map(\.entryType) == [.debit(.refund)] && endRows.map(\.changeMonths) == [-11], "\(endRows)")
        #expect(afterEnd.response?.credential == nil && afterEnd.subscription == .ended, "\(afterEnd.text)")
        #expect(checkLedger(endRows, after: subscribedLast, purchaseBadgeType: .supporter) == nil)

        // Counted by outcome; the log names no signed payload.
        let metrics = try HTTP.request("GET", "http://127.0.0.1:\(service.port)/metrics").text
        for (result, count) in [("refused", 2), ("retry_later", 3), ("applied", 3), ("duplicate", 1), ("ignored", 1)] {
            #expect(metrics.contains("route=\"webhook_apple\",command=\"\",result=\"\(result)\"} \(count)"), "\(result)")
        }
        #expect(!service.accessLog.contains(refundedJWS.prefix(40)) && !service.stderr.contains(refundedJWS.prefix(40)))
        #expect(service.stderr.contains("apple notification refused"))
    }

    @Test func withoutAppleTheRouteAnswersAsAnyUnconfiguredWebhook() async throws {
        let data = TemporaryDirectory("e2e-apple-notifications-unconfigured")
        let service = try await onOwnThread { try ServiceProcess(data: data, executable: try AppStoreEndToEndTests.release) }
        defer { _ = service.stop() }
        let apple = try await onOwnThread { try AppStoreNotificationEndToEndTests.post(service, Array(#"{"signedPayload":"a.b.c"}"#.utf8)) }
        let stripe = try await onOwnThread {
            try HTTP.request("POST", "http://127.0.0.1:\(service.port)/webhooks/stripe", body: Array("{}".utf8),
                             headers: ["Content-Type": "application/json"])
        }
        #expect(apple.status == 501 && stripe.status == 501)
    }
}

extension HTTPReply {
    /// The `subscription` of a badgeCredential answer.
    var subscription: SubscriptionState? {
        if case .badgeCredential(_, _, _, let state)? = response { return state }
        return nil
    }
}
