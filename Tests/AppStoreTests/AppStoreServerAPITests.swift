import AppStore
import BadgeCore
import Foundation
import JSON
import TestSupport
import Testing

/// The App Store Server API client over real HTTP against the fake of Tests/Peers/fake_appstore.py:
/// the bearer token as PyJWT checks it, production then sandbox, and every answer in the spec's
/// class for a subscription's status (timeouts, the cap, Retry-After). The fake starts, and calls
/// that may wait, run on threads of their own, never holding one of the test pool's few threads.
@Suite(.timeLimit(.minutes(5))) struct AppStoreServerAPITests {
    let fake: FakeAppStore

    init() async throws { fake = try await onOwnThread { try FakeAppStore() } }

    /// The status read, on a thread of its own.
    func status(_ api: AppStoreServerAPI, _ id: String) async throws -> AppStoreStatusVerdict {
        try await onOwnThread { api.subscriptionStatus(originalTransactionId: id, now: Self.now) }
    }

    static var now: Timestamp { Timestamp(seconds: Int64(Date().timeIntervalSince1970)) }

    func api(creditsSandbox: Bool = false, timeout: Double = 10, productionURL: String? = nil,
             keyPEM: [UInt8]? = nil) throws -> AppStoreServerAPI {
        let key = try AppStoreAPIKey(p8: try keyPEM ?? fake.privateKeyPEM, keyId: fake.keyId, issuerId: fake.issuerId,
                                     bundleId: fake.bundleId)
        let roots = try #require(AppleRootCertificates(der: [try fake.rootDER]))
        return AppStoreServerAPI(key: key, verifier: AppStoreVerifier(roots: roots, bundleId: fake.bundleId, creditsSandbox: creditsSandbox),
                                 productionURL: productionURL ?? fake.productionURL, sandboxURL: fake.sandboxURL,
                                 timeoutSeconds: timeout)
    }

    /// A subscription's charge running now: a month from yesterday.
    static var running: JSONObject {
        let ms = Int(now.seconds) * 1000
        return ["purchaseDate": .number(JSONNumber(ms - 86_400_000)), "expiresDate": .number(JSONNumber(ms + 29 * 86_400_000))]
    }

    func answer(_ verdict: AppStoreStatusVerdict) -> String {
        switch verdict {
        case .read(let read): "read \(read.transaction.environment.rawValue)"
        case .refused(let refusal): refusal.answer.rawValue
        case .unavailable: "provider_unavailable"
        }
    }

    func environmentsAsked(_ id: String) throws -> [String] {
        try fake.requests().filter { $0["originalTransactionId"]?.stringValue == id }.compactMap { $0["environment"]?.stringValue }
    }

    @Test func aProductionSubscriptionIsReadWithATokenAppleWouldAccept() async throws {
        try fake.script("2000000800000001", transaction: Self.running)
        guard case .read(let read) = try await status(try api(), "2000000800000001") else {
            Issue.record("not read")
            return
        }
        #expect(read.status == .active && read.transaction.environment == .production)
        #expect(read.transaction.originalTransactionId == "2000000800000001")
        let requests = try fake.requests()
        #expect(requests.count == 1)
        #expect(requests.first?["tokenAccepted"] == .bool(true), "\(requests)")
        #expect(requests.first?["environment"] == "production")
        #expect(requests.first?["accept"] == "application/json")
    }

    @Test func anotherKeyIsRefusedByAppleAndAnsweredInternal() async throws {
        let other = TemporaryDirectory("appstore-other-key")
        let otherPath = other.path
        _ = try await onOwnThread { try PeerPython.run(script: "appstore_peer.py", arguments: ["apikey", otherPath]) }
        let pem = [UInt8](try Data(contentsOf: URL(fileURLWithPath: other.file("key.p8"))))
        try fake.script("2000000800000002", transaction: Self.running)
        let verdict = try await status(try api(keyPEM: pem), "2000000800000002")
        #expect(answer(verdict) == "internal")
        // Production's 401 sent it to the sandbox, which refused the token too.
        let requests = try fake.requests()
        #expect(requests.map { $0["environment"]?.stringValue } == ["production", "sandbox"])
        #expect(requests.allSatisfy { $0["tokenAccepted"] == .bool(false) })
    }

    @Test func productionThenSandbox() async throws {
        let api = try api()
        // Not in production, in the sandbox: a Sandbox status, test_purchase unless the deployment credits them.
        try fake.script("2000000800000010", environment: "sandbox", transaction: Self.running)
        #expect(answer(try await status(api, "2000000800000010")) == "test_purchase")
        #expect(try environmentsAsked("2000000800000010") == ["production", "sandbox"])
        #expect(answer(try await status(try self.api(creditsSandbox: true), "2000000800000010"))
                == "read Sandbox")
        // Production refuses every call before the app's first release (401): the sandbox answers.
        try fake.script("2000000800000011", mode: "401")
        try fake.script("2000000800000011", environment: "sandbox", transaction: Self.running)
        #expect(answer(try await status(try self.api(creditsSandbox: true), "2000000800000011"))
                == "read Sandbox")
        // Nowhere: production's answer stands, a 404 unavailable and a 401 internal.
        #expect(answer(try await status(api, "2000000800000012")) == "provider_unavailable")
        #expect(try environmentsAsked("2000000800000012") == ["production", "sandbox"])
        try fake.script("2000000800000013", mode: "401")
        #expect(answer(try await status(api, "2000000800000013")) == "internal")
        // Any other production answer is final: the sandbox is not asked.
        for (id, mode) in [("2000000800000014", "403"), ("2000000800000015", "500"), ("2000000800000016", "nosuch")] {
            try fake.script(id, mode: mode)
            try fake.script(id, environment: "sandbox", transaction: Self.running)
            #expect(answer(try await status(api, id)) != "read Sandbox", "\(mode)")
            #expect(try environmentsAsked(id) == ["production"], "\(mode)")
        }
    }

    @Test func everyFailureIsInItsClass() async throws {
        let api = try api(timeout: 2)
        let cases: [(String, String, String)] = [
            ("2000000800000020", "403", "internal"),
            ("2000000800000021", "404", "provider_unavailable"),
            ("2000000800000022", "500", "provider_unavailable"),
            ("2000000800000023", "503", "provider_unavailable"),
            ("2000000800000024", "garbage", "internal"),
            ("2000000800000025", "huge", "internal"),
            ("2000000800000026", "hugechunked", "internal"),
            ("2000000800000030", "hugeerror", "provider_unavailable"),
            ("2000000800000027", "nosuch", "provider_unavailable"),
            ("2000000800000028", "slow", "provider_unavailable"),
        ]
        for (id, mode, expected) in cases {
            try fake.script(id, mode: mode, transaction: Self.running, delaySeconds: 5)
            #expect(answer(try await status(api, id)) == expected, "\(mode)")
        }
        // 429: Apple's Retry-After is a UNIX time in milliseconds; it comes back as seconds from now.
        try fake.script("2000000800000029", mode: "429", retryAfterSeconds: 90)
        // The fake stamps its answer after `now` by however long a loaded machine takes to answer;
        // the bound allows that wait, measured, and a second for rounding `now` down.
        let asked = Date()
        guard case .unavailable(_, let after) = try await status(api, "2000000800000029") else {
            Issue.record("429 not unavailable")
            return
        }
        let waited = Int64(Date().timeIntervalSince(asked).rounded(.up))
        #expect(after.map { (90...(91 + waited)).contains($0) } == true, "\(String(describing: after)) after \(waited) s")
        // Family-shared: receipt_invalid, Apple's own word on the subscription.
        var shared = Self.running
        shared["inAppOwnershipType"] = "FAMILY_SHARED"
        try fake.script("2000000800000030", transaction: shared)
        #expect(answer(try await status(api, "2000000800000030")) == "receipt_invalid")
        // An id that is not all digits is never sent.
        #expect(answer(try await status(api, "20000008/../1")) == "internal")
        #expect(try environmentsAsked("20000008/../1").isEmpty)
    }

    @Test func anUnreachableAPIIsUnavailable() async throws {
        // A port nothing listens on: the fake's own port after it is gone is not certain, so a closed one.
        let api = try api(timeout: 2, productionURL: "http://127.0.0.1:1")
        #expect(answer(try await status(api, "2000000800000040")) == "provider_unavailable")
    }
}
