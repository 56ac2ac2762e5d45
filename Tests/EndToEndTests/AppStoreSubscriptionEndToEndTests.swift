import BadgeCore
import Crypto
import Foundation
import JSON
import Ledger
import Schema
import TestSupport
import Testing

/// App Store subscriptions on the release binary over HTTP, the App Store Server API played by
/// the fake of Tests/Peers/fake_appstore.py: a subscription credited from its period start,
/// replayed, refused to another key, and each status answered in the spec's class.
@Suite(.serialized, .timeLimit(.minutes(5))) struct AppStoreSubscriptionEndToEndTests {
    static let day = 86_400_000

    /// `[apple]` with the fake's PKI, its API key and URLs.
    static func service(_ fake: FakeAppStore, in data: TemporaryDirectory, withKey: Bool = true) throws -> ServiceProcess {
        let config = data.file("badge-service.ini")
        var text = """
        [apple]
        bundle_id = \(fake.bundleId)
        root_certificates = \(fake.files.file("root.pem"))
        api_url = \(fake.productionURL)
        sandbox_api_url = \(fake.sandboxURL)
        timeout = 3

        """
        if withKey {
            text += """
            issuer_id = \(fake.issuerId)
            key_id = \(fake.keyId)
            private_key = \(fake.files.file("key.p8"))

            """
        }
        try Data(text.utf8).write(to: URL(fileURLWithPath: config))
        return try ServiceProcess(data: data, arguments: ["--config", config], executable: try AppStoreEndToEndTests.release)
    }

    /// A charge of `product` from `startDays` to `endDays` around `nowMs`.
    static func charge(_ nowMs: Int, _ startDays: Int, _ endDays: Int, id: String,
                       product: String = "SUBSCR_BADGE_SUPPORTER_MONTH_01") -> JSONObject {
        ["transactionId": .string(id), "productId": .string(product), "purchaseDate": .number(JSONNumber(nowMs + startDays * day)),
         "expiresDate": .number(JSONNumber(nowMs + endDays * day))]
    }

    /// The transaction a device presents: a subscription transaction of `original`, signed by the fake's PKI.
    static func presented(_ fake: FakeAppStore, original: String, transactionId: String, nowMs: Int,
                          environment: String = "Production") throws -> String {
        var payload = charge(nowMs, -1, 29, id: transactionId)
        payload["originalTransactionId"] = .string(original)
        payload["bundleId"] = .string(fake.bundleId)
        payload["type"] = "Auto-Renewable Subscription"
        payload["quantity"] = 1
        payload["inAppOwnershipType"] = "PURCHASED"
        payload["signedDate"] = .number(JSONNumber(nowMs))
        payload["environment"] = .string(environment)
        return try fake.sign(.object(payload))
    }

    @Test func aSubscriptionIsCreditedFromItsPeriodStartReplayedAndRefusedToAnotherKey() async throws {
        let fake = try await onOwnThread { try FakeAppStore() }
        let data = TemporaryDirectory("e2e-apple-subscription")
        let service = try await onOwnThread { try Self.service(fake, in: data) }
        defer { _ = service.stop() }
        let nowMs = Int(Date().timeIntervalSince1970) * 1000

        try fake.script("2000000400000001", transaction: Self.charge(nowMs, -1, 29, id: "2000000400000009"))
        let jws = try await onOwnThread { try Self.presented(fake, original: "2000000400000001", transactionId: "2000000400000009", nowMs: nowMs) }
        let key = Ed25519PrivateKey(), master = SecureRandom.bytes(32)
        let first = try await onOwnThread { try AppStoreEndToEndTests.purchase(service, jws: jws, key: key, masterKey: master) }
        #expect(first.status == 200, "\(first.text)")
        guard case .badgeCredential(let credential, let statement, let receipt, let subscription)? = first.response else {
            Issue.record("not a credential: \(first.text)")
            return
        }
        #expect(credential?.badgeType == .supporter && receipt != nil && subscription == .renewing)
        #expect(statement.entries.map(\.entryType) == [.credit(.charge(chargeId: "2000000400000009")), .debit(.badge)])
        #expect(statement.entries.map(\.changeMonths) == [1, -1])
        // Dated to the store's billing period start, a day ago.
        let periodStart = Timestamp(seconds: Int64(nowMs / 1000 - 86_400))
        #expect(statement.entries.first?.balanceStartTs == periodStart, "\(statement.entries)")
        #expect(try fake.requests().filter { $0["originalTransactionId"] == "2000000400000001" }.count == 1)

        // The same request again: the same answer, and Apple is not asked.
        let again = try await onOwnThread { try AppStoreEndToEndTests.purchase(service, jws: jws, key: key, masterKey: master) }
        #expect(again.status == 200 && again.body == first.body)
        #expect(try fake.requests().filter { $0["originalTransactionId"] == "2000000400000001" }.count == 1)
        // Another key: receipt_used.
        let other = try await onOwnThread {
            try AppStoreEndToEndTests.purchase(service, jws: jws, key: Ed25519PrivateKey(), masterKey: SecureRandom.bytes(32))
        }
        #expect(other.status == 409 && other.response?.errorCode == .receiptUsed, "\(other.text)")
        // Every bearer token the service sent was one Apple would accept.
        #expect(try fake.requests().allSatisfy { $0["tokenAccepted"] == .bool(true) })
        #expect(!service.accessLog.contains(jws.prefix(40)))
    }

    @Test func eachStatusIsAnsweredInItsClass() async throws {
        let fake = try await onOwnThread { try FakeAppStore() }
        let data = TemporaryDirectory("e2e-apple-statuses")
        let service = try await onOwnThread { try Self.service(fake, in: data) }
        defer { _ = service.stop() }
        let nowMs = Int(Date().timeIntervalSince1970) * 1000
        let running = Self.charge(nowMs, -1, 29, id: "2000000410000099")

        /// Scripts `original` in production (and the sandbox when given), presents it, and returns the answer.
        func answer(_ original: String, mode: String = "ok", status: Int = 1, transaction: JSONObject? = nil,
                    sandbox: JSONObject? = nil, retryAfterSeconds: Int? = nil) async throws -> (Int, ErrorCode?, UInt32?) {
            let running = running
            return try await onOwnThread { try ask(original, mode: mode, status: status, transaction: transaction ?? running, sandbox: sandbox,
                                                   retryAfterSeconds: retryAfterSeconds) }
        }
        /// The same, blocking: run on a thread of its own.
        @Sendable func ask(_ original: String, mode: String, status: Int, transaction: JSONObject, sandbox: JSONObject?,
                           retryAfterSeconds: Int?) throws -> (Int, ErrorCode?, UInt32?) {
            try fake.script(original, mode: mode, status: status, transaction: transaction, retryAfterSeconds: retryAfterSeconds)
            if let sandbox {
                try fake.script(original, mode: "404")
                try fake.script(original, environment: "sandbox", transaction: sandbox)
            }
            let jws = try Self.presented(fake, original: original, transactionId: "2000000410000099", nowMs: nowMs)
            let reply = try AppStoreEndToEndTests.purchase(service, jws: jws, key: Ed25519PrivateKey(), masterKey: SecureRandom.bytes(32))
            if case .error(let code, _, let after)? = reply.response { return (reply.status, code, after) }
            return (reply.status, nil, nil)
        }

        var shared = running
        shared["inAppOwnershipType"] = "FAMILY_SHARED"
        var offered = running
        offered["offerType"] = 1
        var refunded = running
        refunded["revocationDate"] = .number(JSONNumber(nowMs - 3_600_000))
        let hour = SubscriptionHour.seconds, day = SubscriptionHour.seconds * 24

        #expect(try await answer("2000000410000001", mode: "404") == (503, .providerUnavailable, hour))
        #expect(try await answer("2000000410000002", mode: "500") == (503, .providerUnavailable, hour))
        // Apple's Retry-After past the hour is kept; the answer is never shorter than the hour.
        let (status429, code429, after429) = try await answer("2000000410000003", mode: "429", retryAfterSeconds: 7200)
        #expect(status429 == 503 && code429 == .providerUnavailable && (7100...7300).contains(after429 ?? 0))
        #expect(try await answer("2000000410000004", mode: "nosuch") == (503, .providerUnavailable, hour))
        #expect(try await answer("2000000410000005", mode: "401").1 == .internal)
        #expect(try await answer("2000000410000006", mode: "403").1 == .internal)
        #expect(try await answer("2000000410000007", mode: "garbage").1 == .internal)
        #expect(try await answer("2000000410000008", mode: "huge").1 == .internal)
        #expect(try await answer("2000000410000009", mode: "slow").1 == .providerUnavailable)
        #expect(try await answer("2000000410000010", status: 9).1 == .internal)
        #expect(try await answer("2000000410000011", transaction: shared).1 == .receiptInvalid)
        #expect(try await answer("2000000410000012", sandbox: running).1 == .testPurchase)
        #expect(try await answer("2000000410000013", transaction: offered) == (409, .paymentPending, day))
        #expect(try await answer("2000000410000014", transaction: refunded) == (409, .paymentPending, day))
        #expect(try await answer("2000000410000015", status: 2, transaction: Self.charge(nowMs, -40, -10, id: "2000000410000099"))
                == (409, .paymentPending, day))
        #expect(try await answer("2000000410000016", transaction: Self.charge(nowMs, -1, 29, id: "2000000410000099", product: "SUBSCR_ELSE"))
                == (409, .paymentPending, day))
        #expect(try await answer("2000000410000017", transaction: Self.charge(nowMs, 1, 31, id: "2000000410000099"))
                == (409, .paymentPending, hour))
        #expect(try await answer("2000000410000018", transaction: Self.charge(nowMs, -1, -1, id: "2000000410000099")).1 == .internal)
        // Inside the hour, the same subscription presented again by any key: payment_pending with the time left.
        let (statusAgain, codeAgain, afterAgain) = try await answer("2000000410000001", mode: "ok")
        #expect(statusAgain == 409 && codeAgain == .paymentPending && (3500...3600).contains(afterAgain ?? 0))
    }

    /// The service at fake time `t` (libfaketime, as TimeRulesEndToEndTests runs it) on `data`
    /// with `config`, for `body`, then stopped; all of it on a thread of its own, never holding
    /// one of the test pool's few threads.
    static func at<T: Sendable>(_ t: Timestamp, data: TemporaryDirectory, config: String,
                                _ body: @escaping @Sendable (FakeTimeDeployment.Step) throws -> T) async throws -> T {
        let d = t.date, s = t.secondOfDay
        let text = String(format: "%04d-%02d-%02d %02d:%02d:%02d", d.year, d.month, d.day, s / 3600, s / 60 % 60, s % 60)
        let (result, stopped) = try await onOwnThread { () -> (T, Int32?) in
            let service = try ServiceProcess(data: data, arguments: ["--config", config], environment: ["TZ": "UTC"],
                                             executable: try AppStoreEndToEndTests.release,
                                             launcher: [FakeTimeDeployment.wrapper, "--exclude-monotonic", text])
            let result = try body(FakeTimeDeployment.Step(service: service, time: t))
            return (result, service.stop())
        }
        #expect(stopped == 0, "the service at \(t) did not stop cleanly")
        return result
    }

    static func ms(_ t: Timestamp) -> Int { Int(t.seconds) * 1000 }

    /// A monthly plan renewed across two months, and an annual one refunded in its second month:
    /// the release binary under libfaketime, the App Store Server API scripted month by month.
    @Test func subscriptionsRenewOverSimulatedMonthsAndARefundEndsOne() async throws {
        let fake = try await onOwnThread { try FakeAppStore() }
        let data = TemporaryDirectory("e2e-apple-renewals")
        _ = try await onOwnThread { try Self.service(fake, in: data).stop() }  // writes the configuration, and checks it starts
        let config = data.file("badge-service.ini")
        let t0 = Timestamp(CivilDate(year: 2027, month: 1, day: 10), hour: 12)
        let start = Timestamp(seconds: t0.seconds - 3600)
        let monthly = "2000000430000001", annual = "2000000430000002"
        func period(_ id: String, _ from: Int, _ to: Int, product: String = "SUBSCR_BADGE_SUPPORTER_MONTH_01") -> JSONObject {
            ["transactionId": .string(id), "productId": .string(product),
             "purchaseDate": .number(JSONNumber(Self.ms(addMonths(from, to: start)))),
             "expiresDate": .number(JSONNumber(Self.ms(addMonths(to, to: start))))]
        }
        func asked(_ original: String) throws -> Int {
            try fake.requests().filter { $0["originalTransactionId"]?.stringValue == original }.count
        }
        let monthlyKey = Ed25519PrivateKey(), annualKey = Ed25519PrivateKey()

        // 10 January: both bought, each credited from its period start, an hour before. Apple's
        // clock is the service's, so the tokens it signs are current there.
        try fake.setClock(unixSeconds: t0.seconds)
        try fake.script(monthly, transaction: period("2000000430000011", 0, 1))
        try fake.script(annual, transaction: period("2000000430000021", 0, 12, product: "SUBSCR_BADGE_LEGEND_YEAR_01"))
        let (m, a) = try await Self.at(t0, data: data, config: config) { step in
            (try step.send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .apple(jws: try Self.presented(
                fake, original: monthly, transactionId: "2000000430000011", nowMs: Self.ms(t0))), upgrade: nil), by: monthlyKey),
             try step.send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .apple(jws: try Self.presented(
                fake, original: annual, transactionId: "2000000430000021", nowMs: Self.ms(t0))), upgrade: nil), by: annualKey))
        }
        #expect(m.status == 200 && a.status == 200, "\(m.text) \(a.text)")
        #expect(m.response?.reportedSubscription == .renewing && a.response?.reportedSubscription == .renewing)
        let monthlyRows = m.response?.statement?.entries ?? [], annualRows = a.response?.statement?.entries ?? []
        #expect(monthlyRows.map(\.changeMonths) == [1, -1] && annualRows.map(\.changeMonths) == [12, -1])
        #expect(monthlyRows.first?.balanceStartTs == start && annualRows.first?.balanceBadgeType == .legend)

        // 11 February: the monthly plan charged again, its new period granted and the month issued;
        // Apple reports the annual plan refunded: the months not yet issued are debited refund and it ends.
        let t1 = Timestamp(seconds: addMonths(1, to: t0).seconds + 86_400)
        try fake.setClock(unixSeconds: t1.seconds)
        try fake.script(monthly, transaction: period("2000000430000012", 1, 2))
        var refunded = period("2000000430000021", 0, 12, product: "SUBSCR_BADGE_LEGEND_YEAR_01")
        refunded["revocationDate"] = .number(JSONNumber(Self.ms(t1) - 86_400_000))
        try fake.script(annual, status: 5, transaction: refunded)
        let monthlyLast = try #require(monthlyRows.last), annualLast = try #require(annualRows.last)
        let (renewed, ended, endedAgain) = try await Self.at(t1, data: data, config: config) { step in
            (try step.issue(by: monthlyKey, asserting: monthlyLast), try step.issue(by: annualKey, asserting: annualLast),
             try step.issue(by: annualKey, asserting: annualLast))
        }
        #expect(renewed.status == 200, "\(renewed.text)")
        #expect(renewed.response?.reportedSubscription == .renewing)
        let renewedRows = renewed.response?.statement?.entries ?? []
        #expect(renewedRows.contains { $0.entryType == .credit(.charge(chargeId: "2000000430000012")) }, "\(renewedRows)")
        #expect(renewedRows.last?.entryType == .debit(.badge))
        #expect(renewed.response?.credential != nil)
        #expect(try asked(monthly) == 2)

        #expect(ended.response?.reportedSubscription == .ended, "\(ended.text)")
        #expect(ended.response?.credential == nil)
        let endedRows = ended.response?.statement?.entries ?? []
        #expect(endedRows.contains { $0.entryType == .debit(.refund) && $0.changeMonths < 0 }, "\(endedRows)")
        #expect(endedRows.last?.balanceMonths == 0)
        // Read ended within the hour: answered ended again without asking Apple.
        #expect(endedAgain.response?.reportedSubscription == .ended)
        #expect(try asked(annual) == 2)
    }

    /// A monthly supporter plan raised to legend in Apple's sheet (upgradeBadgeSubscription), then
    /// moved to another device's key (transferBadge): the release binary under libfaketime, the
    /// App Store Server API scripted as Apple would answer at each date.
    @Test func anUpgradeThenATransferOverSimulatedDays() async throws {
        let fake = try await onOwnThread { try FakeAppStore() }
        let data = TemporaryDirectory("e2e-apple-upgrade")
        _ = try await onOwnThread { try Self.service(fake, in: data).stop() }
        let config = data.file("badge-service.ini")
        let original = "2000000440000001"
        let t0 = Timestamp(CivilDate(year: 2027, month: 3, day: 10), hour: 12)
        func transaction(_ id: String, _ product: String, from: Timestamp) -> JSONObject {
            ["transactionId": .string(id), "productId": .string(product), "purchaseDate": .number(JSONNumber(Self.ms(from))),
             "expiresDate": .number(JSONNumber(Self.ms(addMonths(1, to: from))))]
        }
        @Sendable func presented(_ t: JSONObject, at now: Timestamp) throws -> String {
            var payload = t
            payload["originalTransactionId"] = .string(original)
            payload["bundleId"] = .string(fake.bundleId)
            payload["type"] = "Auto-Renewable Subscription"
            payload["quantity"] = 1
            payload["inAppOwnershipType"] = "PURCHASED"
            payload["signedDate"] = .number(JSONNumber(Self.ms(now)))
            payload["environment"] = "Production"
            return try fake.sign(.object(payload))
        }
        let phone = Ed25519PrivateKey(), tablet = Ed25519PrivateKey()

        // 10 March: a monthly supporter plan bought, credited from its period start.
        let supporter = transaction("2000000440000011", "SUBSCR_BADGE_SUPPORTER_MONTH_01", from: Timestamp(seconds: t0.seconds - 600))
        try fake.setClock(unixSeconds: t0.seconds)
        try fake.script(original, transaction: supporter)
        let bought = try await Self.at(t0, data: data, config: config) { step in
            try step.send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .apple(jws: try presented(supporter, at: t0)),
                                         upgrade: nil), by: phone)
        }
        #expect(bought.status == 200 && bought.response?.credential?.badgeType == .supporter, "\(bought.text)")
        let boughtLast = try #require(bought.response?.statement?.entries.last)

        // 20 March: raised to legend; Apple charges the new tier at once and the device hands the
        // transaction over: granted now, as legend, on the same key.
        let t1 = Timestamp(seconds: t0.seconds + 10 * 86_400)
        let legend = transaction("2000000440000012", "SUBSCR_BADGE_LEGEND_MONTH_01", from: Timestamp(seconds: t1.seconds - 60))
        try fake.setClock(unixSeconds: t1.seconds)
        try fake.script(original, transaction: legend)
        let upgraded = try await Self.at(t1, data: data, config: config) { step in
            try step.send(.upgradeBadgeSubscription(payment: .apple(jws: try presented(legend, at: t1)),
                                                    balance: Balance(lastEntry: boughtLast)), by: phone)
        }
        #expect(upgraded.status == 200, "\(upgraded.text)")
        #expect(upgraded.response?.credential?.badgeType == .legend)
        #expect(upgraded.response?.reportedSubscription == .renewing)
        let upgradedRows = upgraded.response?.statement?.entries ?? []
        #expect(upgradedRows.contains { $0.entryType == .credit(.charge(chargeId: "2000000440000012")) }, "\(upgradedRows)")
        #expect(upgradedRows.last?.entryType == .debit(.badge) && upgradedRows.last?.balanceBadgeType == .legend)
        let upgradedLast = try #require(upgradedRows.last)

        // 25 March: Restore on a tablet moves the subscription to its key: the tablet is credited
        // the legend charge from its period start, and the phone's purchase answers ended, no credential.
        let t2 = Timestamp(seconds: t1.seconds + 5 * 86_400)
        try fake.setClock(unixSeconds: t2.seconds)
        let (moved, left) = try await Self.at(t2, data: data, config: config) { step in
            (try step.send(.transferBadge(masterKey: SecureRandom.bytes(32), payment: .apple(jws: try presented(legend, at: t2))),
                           by: tablet),
             try step.issue(by: phone, asserting: upgradedLast))
        }
        #expect(moved.status == 200 && moved.response?.credential?.badgeType == .legend, "\(moved.text)")
        let movedRows = moved.response?.statement?.entries ?? []
        #expect(movedRows.first?.entryType == .credit(.charge(chargeId: "2000000440000012")), "\(movedRows)")
        #expect(movedRows.first?.balanceStartTs == Timestamp(seconds: t1.seconds - 60))
        #expect(left.response?.reportedSubscription == .ended && left.response?.credential == nil, "\(left.text)")
        let leftRows = left.response?.statement?.entries ?? []
        #expect(leftRows.contains { $0.entryType == .debit(.transferOut(toPurchaseKey: tablet.publicKey.purchaseKeyText)) },
                "\(leftRows)")
    }

    /// An annual supporter plan is not paused (docs/protocol.md, Pause, rule 9): the release binary
    /// under libfaketime refuses the pause and writes nothing, and in August the months follow
    /// Apple's periods, Apple still reporting the plan renewing.
    @Test func anAnnualPlanIsNotPausedAndItsMonthsFollowApplesPeriods() async throws {
        let fake = try await onOwnThread { try FakeAppStore() }
        let data = TemporaryDirectory("e2e-apple-pause")
        _ = try await onOwnThread { try Self.service(fake, in: data).stop() }
        let config = data.file("badge-service.ini")
        let original = "2000000450000001"
        let t0 = Timestamp(CivilDate(year: 2027, month: 1, day: 10), hour: 12)
        let start = Timestamp(seconds: t0.seconds - 3600)
        let annual: JSONObject = ["transactionId": "2000000450000011", "productId": "SUBSCR_BADGE_SUPPORTER_YEAR_01",
                                  "purchaseDate": .number(JSONNumber(Self.ms(start))),
                                  "expiresDate": .number(JSONNumber(Self.ms(addMonths(12, to: start))))]
        var presented = annual
        presented["originalTransactionId"] = .string(original)
        presented["bundleId"] = .string(fake.bundleId)
        presented["type"] = "Auto-Renewable Subscription"
        presented["quantity"] = 1
        presented["inAppOwnershipType"] = "PURCHASED"
        presented["signedDate"] = .number(JSONNumber(Self.ms(t0)))
        presented["environment"] = "Production"
        let signed = presented
        let jws = try await onOwnThread { try fake.sign(.object(signed)) }
        let key = Ed25519PrivateKey()
        func asked() throws -> Int { try fake.requests().filter { $0["originalTransactionId"]?.stringValue == original }.count }

        // 10 January 2027: bought, 12 months credited, the first issued.
        try fake.setClock(unixSeconds: t0.seconds)
        try fake.script(original, transaction: annual)
        let bought = try await Self.at(t0, data: data, config: config) { step in
            try step.send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .apple(jws: jws), upgrade: nil), by: key)
        }
        #expect(bought.status == 200, "\(bought.text)")
        let boughtRows = bought.response?.statement?.entries ?? []
        #expect(boughtRows.map(\.changeMonths) == [12, -1])

        // 20 January: the pause is refused (the store keeps charging; the buyer pauses there) and
        // nothing is written.
        let t1 = Timestamp(CivilDate(year: 2027, month: 1, day: 20), hour: 9)
        let paused = try await Self.at(t1, data: data, config: config) { step in try step.send(.pauseBadge, by: key) }
        #expect(paused.status == 400 && paused.response?.errorCode == .badRequest, "\(paused.text)")

        // 10 August 12:00: Apple is asked (a month is due) and still reports the plan renewing. The
        // months unclaimed since February ran out with Apple's periods; August's is issued, from
        // the purchase's anchor, not from a resume.
        let t2 = Timestamp(CivilDate(year: 2027, month: 8, day: 10), hour: 12)
        try fake.setClock(unixSeconds: t2.seconds)
        let last = try #require(boughtRows.last)
        let issued = try await Self.at(t2, data: data, config: config) { step in try step.issue(by: key, asserting: last) }
        #expect(issued.status == 200, "\(issued.text)")
        let rows = issued.response?.statement?.entries ?? []
        #expect(rows.map(\.entryType) == [.debit(.lapse), .debit(.badge)], "\(rows)")
        #expect(rows.first?.changeMonths == -6 && rows.last?.balanceMonths == 4)
        #expect(rows.allSatisfy { $0.wasPausedSince == nil && $0.balanceAnchorTs == boughtRows.last?.balanceAnchorTs })
        #expect(issued.response?.credential?.expiry == Timestamp(CivilDate(year: 2027, month: 9, day: 14)))
        #expect(issued.response?.reportedSubscription == .renewing)
        #expect(try asked() == 2)
        // The client replica takes every row.
        #expect(checkLedger(boughtRows + rows, purchaseBadgeType: .supporter) == nil)
    }

    @Test func withoutTheAPIKeySubscriptionsAreNotConfigured() async throws {
        let fake = try await onOwnThread { try FakeAppStore() }
        let data = TemporaryDirectory("e2e-apple-nokey")
        let service = try await onOwnThread { try Self.service(fake, in: data, withKey: false) }
        defer { _ = service.stop() }
        let nowMs = Int(Date().timeIntervalSince1970) * 1000
        try fake.script("2000000420000001", transaction: Self.charge(nowMs, -1, 29, id: "2000000420000009"))
        let reply = try await onOwnThread {
            let jws = try Self.presented(fake, original: "2000000420000001", transactionId: "2000000420000009", nowMs: nowMs)
            return try AppStoreEndToEndTests.purchase(service, jws: jws, key: Ed25519PrivateKey(), masterKey: SecureRandom.bytes(32))
        }
        #expect(reply.response?.errorCode == .providerNotConfigured, "\(reply.text)")
        #expect(try fake.requests().isEmpty)
    }
}

extension RPCResponse {
    /// The `subscription` a badgeCredential answer carries.
    var reportedSubscription: SubscriptionState? {
        if case .badgeCredential(_, _, _, let state) = self { return state }
        return nil
    }
}

/// The spec's hour of the subscription checks, in seconds.
enum SubscriptionHour {
    static let seconds: UInt32 = 3600
}
