import BadgeCore
import Crypto
import Foundation
import JSON
import Ledger
import Locking
import Schema
import TestSupport
import Testing

/// Issue 11 on the release binary over HTTP: `[google]` pointed at the fake Google on
/// 127.0.0.1 (`Sources/TestSupport/FakeGoogle.swift`), a one-time purchase credited, replayed
/// and refused to another key, and every item of the spec's Google Play list in its class.
@Suite(.serialized, .timeLimit(.minutes(5))) struct GooglePlayEndToEndTests {
    static let product = "badge_supporter_01"
    static let purchased = #"{"kind":"androidpublisher#productPurchase","purchaseTimeMillis":"1773140000000","purchaseState":0,"consumptionState":0,"acknowledgementState":0,"orderId":"GPA.1"}"#

    static func route(_ token: String) -> String { "purchases/products/\(product)/tokens/\(token)" }

    static func purchase(_ fields: [String: String]) -> String {
        var object = (try! JSONValue.parse(Array(purchased.utf8))).objectValue!
        for (k, v) in fields { object[k] = try! JSONValue.parse(Array(v.utf8)) }
        return String(decoding: JSONValue.object(object).serialized(), as: UTF8.self)
    }

    /// The release binary with `[google]` pointed at `base`, its key file in `data`.
    static func service(fakeAt base: String, in data: TemporaryDirectory, extra: String = "") throws -> ServiceProcess {
        let keyFile = data.file("play-service-account.json")
        try Data(PeerServiceAccount.shared.keyJSON.utf8).write(to: URL(fileURLWithPath: keyFile))
        chmod(keyFile, 0o600)
        let config = data.file("badge-service.ini")
        try Data("""
        [google]
        package_name = chat.simplex.app
        service_account = \(keyFile)
        api_url = \(base)
        token_url = \(base)/token
        timeout = 1
        \(extra)
        """.utf8).write(to: URL(fileURLWithPath: config))
        return try ServiceProcess(data: data, arguments: ["--config", config], executable: try AppStoreEndToEndTests.release)
    }

    static func buy(_ service: ServiceProcess, token: String, product: String = product, key: Ed25519PrivateKey = Ed25519PrivateKey(),
                    masterKey: [UInt8] = SecureRandom.bytes(32)) throws -> HTTPReply {
        try HTTP.rpc(service, HTTP.envelope(["type": "purchaseBadge", "masterKey": .string(Base64URL.encode(masterKey)),
                                             "payment": ["type": "google", "productId": .string(product), "token": .string(token)]],
                                            key: key), key: key)
    }

    static func retryAfter(_ reply: HTTPReply) -> UInt32? {
        if case .error(_, _, let r)? = reply.response { return r }
        return nil
    }

    @Test func aOneTimePurchaseIsCreditedReplayedAndRefusedToAnotherKey() throws {
        let fake = FakeGoogle()
        let token = "pabeldfhmkjnhppdkmgapcfg.AO-J1OwE2E_one_time-1"
        fake.script("GET", Self.route(token), .json(200, Self.purchased))
        fake.script("POST", Self.route(token) + ":acknowledge", .json(200, ""))
        try fake.serve { base in
            let data = TemporaryDirectory("e2e-google")
            let service = try Self.service(fakeAt: base, in: data)
            defer { _ = service.stop() }
            let key = Ed25519PrivateKey(), master = SecureRandom.bytes(32)
            let first = try Self.buy(service, token: token, key: key, masterKey: master)
            #expect(first.status == 200, "\(first.text)")
            guard case .badgeCredential(let credential, let statement, let receipt, let subscription)? = first.response else {
                Issue.record("not a credential: \(first.text)")
                return
            }
            #expect(credential?.badgeType == .supporter)
            #expect(statement.entries.map(\.changeMonths) == [1, -1])
            #expect(statement.entries.map(\.entryType) == [.credit(.payment(invoiceId: nil)), .debit(.badge)])
            #expect(receipt != nil && subscription == nil)
            #expect(fake.apiCalls.map(\.method) == ["GET", "POST"])

            let again = try Self.buy(service, token: token, key: key, masterKey: master)
            #expect(again.status == 200 && again.body == first.body)
            let other = try Self.buy(service, token: token)
            #expect(other.status == 409 && other.response?.errorCode == .receiptUsed)
            #expect(fake.apiCalls.count == 2)
            #expect(try Self.buy(service, token: token, product: "badge_unknown_01").response?.errorCode == .productUnavailable)
            #expect(!service.accessLog.contains(token) && !service.stderr.contains(token))
        }
    }

    /// Every item of the spec's Google Play list a one-time purchase can meet, each on its own
    /// token, over HTTP: the class, `retryAfter` where the spec has one, nothing credited.
    @Test func everyItemOfTheSpecsGooglePlayListIsAnsweredInItsClassOverHTTP() throws {
        let fake = FakeGoogle()
        let cases: [(token: String, answer: FakeGoogle.Answer?, expected: ErrorCode?, retryAfter: UInt32?)] = [
            ("t.canceled", .json(200, Self.purchase(["purchaseState": "1"])), .receiptInvalid, nil),
            ("t.pending", .json(200, Self.purchase(["purchaseState": "2"])), .paymentPending, 3600),
            ("t.test", .json(200, Self.purchase(["purchaseType": "0"])), .testPurchase, nil),
            ("t.rewarded", .json(200, Self.purchase(["purchaseType": "2"])), .internal, nil),
            ("t.unknown-state", .json(200, Self.purchase(["purchaseState": "9"])), .internal, nil),
            ("t.other-product", .json(200, Self.purchase(["productId": #""badge_legend_01""#])), .internal, nil),
            ("t.garbage", .json(200, "garbage"), .internal, nil),
            ("t.404", .googleError(404, "purchaseTokenNotFound"), .providerUnavailable, 60),
            ("t.400", .googleError(400, "invalid"), .providerUnavailable, 60),
            ("t.410", .googleError(410, "purchaseTokenNoLongerValid"), .providerUnavailable, 60),
            ("t.429", .googleError(429, "rateLimitExceeded"), .providerUnavailable, 60),
            ("t.500", .googleError(500, "backendError"), .providerUnavailable, 60),
            ("t.502", .googleError(502, "badGateway"), .providerUnavailable, 60),
            ("t.403", .googleError(403, "permissionDenied"), .internal, nil),
            ("t.401-always", .googleError(401, "UNAUTHENTICATED"), .internal, nil),
            ("t.slow", .json(200, Self.purchased, delay: 2.5), .providerUnavailable, 60),
            // A 401 once: the token is fetched anew and the purchase credited.
            ("t.401-then-ok", nil, nil, nil),
        ]
        for c in cases where c.answer != nil { fake.script("GET", Self.route(c.token), c.answer!) }
        fake.script("GET", Self.route("t.401-then-ok"), .googleError(401, "UNAUTHENTICATED"),
                    .json(200, Self.purchase(["acknowledgementState": "1"])))
        try fake.serve { base in
            let data = TemporaryDirectory("e2e-google-list")
            let service = try Self.service(fakeAt: base, in: data)
            defer { _ = service.stop() }
            for c in cases {
                let reply = try Self.buy(service, token: c.token)
                if let expected = c.expected {
                    #expect(reply.response?.errorCode == expected, "\(c.token): \(reply.text)")
                    #expect(Self.retryAfter(reply) == c.retryAfter, "\(c.token): \(reply.text)")
                } else {
                    #expect(reply.status == 200, "\(c.token): \(reply.text)")
                }
            }
            // Grammar: a product id outside Play's characters, a token this service will not send.
            #expect(try Self.buy(service, token: "t.ok", product: "Badge-1").response?.errorCode == .receiptInvalid)
            #expect(try Self.buy(service, token: "..").response?.errorCode == .providerUnavailable)
            #expect(try Self.buy(service, token: "a/b").response?.errorCode == .providerUnavailable)
            // The operator's log says why, and never names a token.
            #expect(service.stderr.contains("purchases.products.get answered 404"), "\(service.stderr)")
            let logs = service.stderr + service.accessLog
            for c in cases { #expect(!logs.contains(c.token), "\(c.token)") }
        }
        #expect(!fake.apiCalls.contains { $0.route.contains("t.ok") || $0.route.contains("..") })
    }

    @Test func aFailedAcknowledgementCreditsNothingUntilPlayAcknowledges() throws {
        let fake = FakeGoogle()
        let token = "t.ack"
        fake.script("GET", Self.route(token), .json(200, Self.purchased))
        fake.script("POST", Self.route(token) + ":acknowledge", .googleError(500, "backendError"), .googleError(403, "permissionDenied"),
                    .json(200, ""))
        try fake.serve { base in
            let data = TemporaryDirectory("e2e-google-ack")
            let service = try Self.service(fakeAt: base, in: data)
            defer { _ = service.stop() }
            let key = Ed25519PrivateKey(), master = SecureRandom.bytes(32)
            let unanswered = try Self.buy(service, token: token, key: key, masterKey: master)
            #expect(unanswered.response?.errorCode == .providerUnavailable, "\(unanswered.text)")
            let refused = try Self.buy(service, token: token, key: key, masterKey: master)
            #expect(refused.response?.errorCode == .internal, "\(refused.text)")
            #expect(service.stderr.components(separatedBy: "acknowledging").count - 1 >= 2, "\(service.stderr)")
            // Nothing was credited: another key may still buy with it once Play acknowledges.
            let credited = try Self.buy(service, token: token)
            #expect(credited.status == 200, "\(credited.text)")
            #expect(try Self.buy(service, token: token, key: key, masterKey: master).response?.errorCode == .receiptUsed)
        }
    }

    // MARK: subscriptions

    static let subscriptionProduct = "subscr_badge_supporter_01"

    /// An active monthly supporter subscription, unacknowledged, expiring 20 days from now.
    static func subscription() -> String {
        let expiry = RFC3339.format(Timestamp(seconds: Int64(Date().timeIntervalSince1970) + 20 * 86_400))
        return """
        {"kind":"androidpublisher#subscriptionPurchaseV2","subscriptionState":"SUBSCRIPTION_STATE_ACTIVE",
         "acknowledgementState":"ACKNOWLEDGEMENT_STATE_PENDING",
         "lineItems":[{"productId":"subscr_badge_supporter_01","expiryTime":"\(expiry)","latestSuccessfulOrderId":"GPA.42-7",
           "autoRenewingPlan":{"autoRenewEnabled":true},"offerDetails":{"basePlanId":"subscr-badge-supporter-month-02"},
           "offerPhase":{"basePrice":{}}}]}
        """
    }

    @Test func aSubscriptionIsAcknowledgedCreditedReplayedRefusedToAnotherKeyAndTransferred() throws {
        let fake = FakeGoogle()
        let token = "pabeldfhmkjnhppdkmgapcfg.AO-J1OwE2E_subscription-1"
        let ack = "purchases/subscriptions/\(Self.subscriptionProduct)/tokens/\(token):acknowledge"
        // Read unacknowledged, then (once acknowledged) as Play reports it from then on.
        fake.script("GET", "purchases/subscriptionsv2/tokens/\(token)", .json(200, Self.subscription()),
                    .json(200, Self.subscription().replacingOccurrences(of: "ACKNOWLEDGEMENT_STATE_PENDING", with: "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED")))
        fake.script("POST", ack, .json(200, ""))
        try fake.serve { base in
            let data = TemporaryDirectory("e2e-google-subscription")
            let service = try Self.service(fakeAt: base, in: data)
            defer { _ = service.stop() }
            let key = Ed25519PrivateKey(), master = SecureRandom.bytes(32)
            let first = try Self.buy(service, token: token, product: Self.subscriptionProduct, key: key, masterKey: master)
            #expect(first.status == 200, "\(first.text)")
            guard case .badgeCredential(let credential, let statement, let receipt, let subscription)? = first.response else {
                Issue.record("not a credential: \(first.text)")
                return
            }
            #expect(credential?.badgeType == .supporter && receipt != nil && subscription == .renewing)
            #expect(statement.entries.first?.entryType == .credit(.charge(chargeId: "GPA.42-7")))
            #expect(statement.entries.last?.entryType == .debit(.badge))
            #expect(fake.apiCalls.map(\.route).last == ack)
            let again = try Self.buy(service, token: token, product: Self.subscriptionProduct, key: key, masterKey: master)
            #expect(again.status == 200 && again.body == first.body)
            #expect(try Self.buy(service, token: token, product: Self.subscriptionProduct).response?.errorCode == .receiptUsed)
            #expect(fake.apiCalls.count == 2)

            // Restore on another device: transferBadge moves it to a fresh key (Play read again).
            let restored = Ed25519PrivateKey()
            let moved = try HTTP.rpc(service, HTTP.envelope([
                "type": "transferBadge", "masterKey": .string(Base64URL.encode(SecureRandom.bytes(32))),
                "payment": ["type": "google", "productId": .string(Self.subscriptionProduct), "token": .string(token)],
            ], key: restored), key: restored)
            #expect(moved.status == 200, "\(moved.text)")
            if case .badgeCredential(let credential, let statement, _, let subscription)? = moved.response {
                #expect(credential != nil && subscription == .renewing)
                #expect(statement.entries.first?.entryType == .credit(.charge(chargeId: "GPA.42-7")))
            } else {
                Issue.record("not a credential: \(moved.text)")
            }
            #expect(fake.apiCalls.count == 3)
            #expect(!service.accessLog.contains(token) && !service.stderr.contains(token))
        }
    }

    /// A subscriptionsv2 answer: `state`, one line item of `basePlan` expiring at `expiry`.
    static func subscription(state: String = "SUBSCRIPTION_STATE_ACTIVE", acknowledged: Bool, product: String, basePlan: String,
                             expiry: Timestamp, order: String) -> String {
        """
        {"kind":"androidpublisher#subscriptionPurchaseV2","subscriptionState":"\(state)",
         "acknowledgementState":"ACKNOWLEDGEMENT_STATE_\(acknowledged ? "ACKNOWLEDGED" : "PENDING")",
         "lineItems":[{"productId":"\(product)","expiryTime":"\(RFC3339.format(expiry))","latestSuccessfulOrderId":"\(order)",
           "autoRenewingPlan":{"autoRenewEnabled":true},"offerDetails":{"basePlanId":"\(basePlan)"},"offerPhase":{"basePrice":{}}}]}
        """
    }

    /// A monthly plan renewed into its second month and an annual one voided in its second month,
    /// on the release binary under libfaketime, Play scripted as it would answer at each date.
    @Test func subscriptionsRenewOverSimulatedMonthsAndAVoidedOneEnds() async throws {
        let fake = FakeGoogle()
        let monthly = "pabeldfhmkjnhppdkmgapcfg.AO-J1OwE2E_monthly-7", annual = "pabeldfhmkjnhppdkmgapcfg.AO-J1OwE2E_annual-7"
        let t0 = Timestamp(CivilDate(year: 2027, month: 1, day: 10), hour: 12)
        let start = Timestamp(seconds: t0.seconds - 3600)
        let t1 = Timestamp(seconds: addMonths(1, to: t0).seconds + 86_400)
        let supporter = (product: "subscr_badge_supporter_01", plan: "subscr-badge-supporter-month-02")
        let legend = (product: "subscr_badge_legend_01", plan: "subscr-badge-legend-year-01")
        fake.script("GET", "purchases/subscriptionsv2/tokens/\(monthly)",
                    .json(200, Self.subscription(acknowledged: false, product: supporter.product, basePlan: supporter.plan,
                                                 expiry: addMonths(1, to: start), order: "GPA.7-1")),
                    .json(200, Self.subscription(acknowledged: true, product: supporter.product, basePlan: supporter.plan,
                                                 expiry: addMonths(2, to: start), order: "GPA.7-1..0")))
        fake.script("GET", "purchases/subscriptionsv2/tokens/\(annual)",
                    .json(200, Self.subscription(acknowledged: false, product: legend.product, basePlan: legend.plan,
                                                 expiry: addMonths(12, to: start), order: "GPA.7-2")),
                    // Voided: Play ends the subscription, its line item expiring at the revocation.
                    .json(200, Self.subscription(state: "SUBSCRIPTION_STATE_EXPIRED", acknowledged: true, product: legend.product,
                                                 basePlan: legend.plan, expiry: Timestamp(seconds: t1.seconds - 86_400), order: "GPA.7-2")))
        fake.script("POST", "purchases/subscriptions/\(supporter.product)/tokens/\(monthly):acknowledge", .json(200, ""))
        fake.script("POST", "purchases/subscriptions/\(legend.product)/tokens/\(annual):acknowledge", .json(200, ""))
        let monthlyKey = Ed25519PrivateKey(), annualKey = Ed25519PrivateKey()

        // The services and the fake run on a thread of their own, never holding the test pool's few threads;
        // the answers are checked here, where expectations belong to this test.
        let (m, a, renewed, voided, acknowledgements, calls) = try await onOwnThread {
            try fake.serve { base in
                let data = TemporaryDirectory("e2e-google-renewals")
                _ = try Self.service(fakeAt: base, in: data).stop()  // writes the configuration, and checks it starts
                let config = data.file("badge-service.ini")
                func at<T>(_ t: Timestamp, _ body: (FakeTimeDeployment.Step) throws -> T) throws -> T {
                    let d = t.date, s = t.secondOfDay
                    let text = String(format: "%04d-%02d-%02d %02d:%02d:%02d", d.year, d.month, d.day, s / 3600, s / 60 % 60, s % 60)
                    let service = try ServiceProcess(data: data, arguments: ["--config", config], environment: ["TZ": "UTC"],
                                                     executable: try AppStoreEndToEndTests.release,
                                                     launcher: [FakeTimeDeployment.wrapper, "--exclude-monotonic", text])
                    let result = try body(FakeTimeDeployment.Step(service: service, time: t))
                    guard service.stop() == 0 else { throw ServiceProcess.Failure("the service at \(t) did not stop cleanly") }
                    return result
                }
                func buy(_ step: FakeTimeDeployment.Step, _ product: String, _ token: String, by key: Ed25519PrivateKey) throws -> HTTPReply {
                    try step.send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .google(productId: product, token: token),
                                                 upgrade: nil), by: key)
                }
                // 10 January: both bought; 11 February: both asked for their next month.
                let (m, a) = try at(t0) { step in
                    (try buy(step, supporter.product, monthly, by: monthlyKey), try buy(step, legend.product, annual, by: annualKey))
                }
                guard let monthlyLast = m.response?.statement?.entries.last, let annualLast = a.response?.statement?.entries.last else {
                    throw ServiceProcess.Failure("not bought: \(m.text) \(a.text)")
                }
                let (renewed, voided) = try at(t1) { step in
                    (try step.issue(by: monthlyKey, asserting: monthlyLast), try step.issue(by: annualKey, asserting: annualLast))
                }
                return (m, a, renewed, voided, fake.apiCalls.filter { $0.route.hasSuffix(":acknowledge") }.count, fake.apiCalls.count)
            }
        }

        // Both acknowledged, each credited from its period start, an hour before.
        #expect(m.status == 200 && a.status == 200, "\(m.text) \(a.text)")
        let monthlyRows = m.response?.statement?.entries ?? [], annualRows = a.response?.statement?.entries ?? []
        #expect(monthlyRows.map(\.changeMonths) == [1, -1] && annualRows.map(\.changeMonths) == [12, -1])
        #expect(monthlyRows.first?.balanceStartTs == start && annualRows.first?.balanceBadgeType == .legend)
        #expect(acknowledgements == 2)

        // The monthly plan's next charge granted from its period start and its month issued.
        #expect(renewed.status == 200 && renewed.response?.credential != nil, "\(renewed.text)")
        let renewedRows = renewed.response?.statement?.entries ?? []
        #expect(renewedRows.contains { $0.entryType == .credit(.charge(chargeId: "GPA.7-1..0")) && $0.createdAt == addMonths(1, to: start) },
                "\(renewedRows)")
        #expect(renewedRows.last?.entryType == .debit(.badge))
        // The annual one voided during its coverage: the months not issued debited refund, and it ends.
        #expect(voided.response?.reportedSubscription == .ended && voided.response?.credential == nil, "\(voided.text)")
        let voidedRows = voided.response?.statement?.entries ?? []
        #expect(voidedRows.contains { $0.entryType == .debit(.refund) && $0.changeMonths < 0 }, "\(voidedRows)")
        #expect(voidedRows.last?.balanceMonths == 0)
        #expect(calls == 6)  // a read and an acknowledgement each at purchase, a read each a month later
    }

    /// The spec's 300 Play subscription checks a minute, on the release binary: 300 presented at
    /// once (Play answering 404, provider_unavailable), the 301st rate_limited with the seconds
    /// left in the minute and Play not asked about it.
    @Test func theThreeHundredAndFirstSubscriptionCheckInAMinuteIsRateLimited() throws {
        let fake = FakeGoogle()
        try fake.serve { base in
            let data = TemporaryDirectory("e2e-google-limit")
            let service = try Self.service(fakeAt: base, in: data)
            defer { _ = service.stop() }
            let started = Date()
            let codes = LockedValueBox<[ErrorCode?]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { lane in
                for i in stride(from: lane, to: 300, by: 8) {
                    let reply = try? Self.buy(service, token: "s.limit-\(i)", product: Self.subscriptionProduct)
                    codes.withLock { $0.append(reply?.response?.errorCode) }
                }
            }
            let limited = try Self.buy(service, token: "s.limit-300", product: Self.subscriptionProduct)
            // The minute started at the first check: the test is only meaningful within it.
            try #require(Date().timeIntervalSince(started) < 55, "300 checks took over 55 s")
            #expect(codes.withLock { $0 }.count == 300)
            #expect(codes.withLock { $0 }.allSatisfy { $0 == .providerUnavailable })
            #expect(limited.status == 429 && limited.response?.errorCode == .rateLimited, "\(limited.text)")
            let left = Self.retryAfter(limited) ?? 0
            #expect(left >= 1 && left <= 60)
            #expect(fake.apiCalls.filter { $0.route.hasPrefix("purchases/subscriptionsv2/") }.count == 300)
            #expect(!fake.apiCalls.contains { $0.route.hasSuffix("s.limit-300") })
        }
    }
}
