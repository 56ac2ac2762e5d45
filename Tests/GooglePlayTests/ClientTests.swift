import BadgeCore
import Foundation
import GooglePlay
import JSON
import Locking
import TestSupport
import Testing

extension PeerServiceAccount {
    var key: ServiceAccountKey { try! ServiceAccountKey(json: Array(keyJSON.utf8)) }
}

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let box: LockedValueBox<Int64>
    init(_ start: Int64 = 1_764_547_200) { box = LockedValueBox(start) }
    var now: Int64 { box.withLock { $0 } }
    func advance(_ seconds: Int64) { box.withLock { $0 += seconds } }
}

let token = "pabeldfhmkjnhppdkmgapcfg.AO-J1OwTest_token-1"
let productRoute = "purchases/products/badge_supporter_01/tokens/\(token)"
let subscriptionRoute = "purchases/subscriptionsv2/tokens/\(token)"
let purchased = #"{"kind":"androidpublisher#productPurchase","purchaseTimeMillis":"1764547200000","purchaseState":0,"consumptionState":0,"acknowledgementState":0,"orderId":"GPA.1"}"#

/// The client against the fake Google over real HTTP on 127.0.0.1.
@Suite(.serialized) struct ClientTests {
    func withClient<T>(_ fake: FakeGoogle, clock: TestClock = TestClock(), timeout: Double = 5, cap: Int = 1 << 20,
                       _ body: (GooglePlayClient) throws -> T) throws -> T {
        try fake.serve { base in
            let endpoint = GooglePlayEndpoint(packageName: fake.package, apiURL: base + "/", tokenURL: base + "/token",
                                              timeoutSeconds: timeout, maxResponseBytes: cap)
            let client = GooglePlayClient(endpoint: endpoint, key: PeerServiceAccount.shared.key, clock: { clock.now })
            return try body(client)
        }
    }

    func refusal(_ body: () throws -> Void) -> PlayRefusal? {
        do { try body(); return nil } catch { return error as? PlayRefusal }
    }

    @Test func readsAndAcknowledgesNeverConsumes() throws {
        let fake = FakeGoogle()
        fake.script("GET", productRoute, .json(200, purchased))
        fake.script("POST", productRoute + ":acknowledge", .json(200, ""))
        try withClient(fake) { client in
            let p = try client.readOneTime(productID: "badge_supporter_01", token: token)
            #expect(!p.isAcknowledged)
            try client.acknowledgeOneTime(productID: "badge_supporter_01", token: token)
        }
        #expect(fake.apiCalls.map { "\($0.method) \($0.route)" } == ["GET \(productRoute)", "POST \(productRoute):acknowledge"])
        #expect(fake.apiCalls.allSatisfy { $0.authorization == "Bearer at-1" })
        #expect(!fake.received.contains { $0.route.hasSuffix(":consume") })
        #expect(fake.tokenRequests.count == 1)
    }

    @Test func tokenIsCachedUntilFiveMinutesBeforeExpiry() throws {
        let fake = FakeGoogle()
        fake.script("GET", productRoute, .json(200, purchased))
        let clock = TestClock()
        try withClient(fake, clock: clock) { client in
            _ = try client.readOneTime(productID: "badge_supporter_01", token: token)
            clock.advance(3599 - 300 - 1)
            _ = try client.readOneTime(productID: "badge_supporter_01", token: token)
            #expect(fake.tokenRequests.count == 1)
            clock.advance(1)
            _ = try client.readOneTime(productID: "badge_supporter_01", token: token)
            #expect(fake.tokenRequests.count == 2)
        }
        #expect(fake.apiCalls.map(\.authorization) == ["Bearer at-1", "Bearer at-1", "Bearer at-2"])
    }

    @Test func a401ClearsTheTokenAndTheCallIsMadeOnceMore() throws {
        let fake = FakeGoogle()
        fake.script("GET", productRoute, .googleError(401, "UNAUTHENTICATED"), .json(200, purchased))
        try withClient(fake) { client in
            _ = try client.readOneTime(productID: "badge_supporter_01", token: token)
        }
        #expect(fake.tokenRequests.count == 2)
        #expect(fake.apiCalls.map(\.authorization) == ["Bearer at-1", "Bearer at-2"])
    }

    @Test func a401AfterAFreshTokenIsInternal() throws {
        let fake = FakeGoogle()
        fake.script("GET", productRoute, .googleError(401, "UNAUTHENTICATED"))
        let r = try withClient(fake) { client in refusal { _ = try client.readOneTime(productID: "badge_supporter_01", token: token) } }
        #expect(r?.verdict == .internal)
        #expect(fake.apiCalls.count == 2)
    }

    @Test func readErrorStatusesOverHTTP() throws {
        let cases: [(FakeGoogle.Answer, StoreVerdict)] = [
            (.googleError(403, "permissionDenied"), .internal),
            (.googleError(404, "purchaseTokenNotFound"), .providerUnavailable),
            (.googleError(400, "invalid"), .providerUnavailable),
            (.googleError(410, "purchaseTokenNoLongerValid"), .providerUnavailable),
            (.googleError(429, "rateLimitExceeded"), .providerUnavailable),
            (.googleError(500, "backendError"), .providerUnavailable),
            (.googleError(503, "backendError"), .providerUnavailable),
            (.json(200, "<html>garbage</html>"), .internal),
            (.json(200, #"{"purchaseTimeMillis":"1","purchaseState":1}"#), .receiptInvalid),
            (.json(200, #"{"purchaseTimeMillis":"1","purchaseState":2}"#), .paymentPending),
            (.json(200, #"{"purchaseTimeMillis":"1","purchaseState":0,"purchaseType":0}"#), .testPurchase),
        ]
        for (answer, verdict) in cases {
            let fake = FakeGoogle()
            fake.script("GET", productRoute, answer)
            let r = try withClient(fake) { client in refusal { _ = try client.readOneTime(productID: "badge_supporter_01", token: token) } }
            #expect(r?.verdict == verdict, "\(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
        }
    }

    @Test func subscription410IsGoneAndOtherErrorsKeepTheirClass() throws {
        let fake = FakeGoogle()
        fake.script("GET", subscriptionRoute, .googleError(410, "subscriptionPurchaseNoLongerAvailable"))
        let read = try withClient(fake) { client in try client.readSubscription(token: token) }
        #expect(read == .gone)
        // A 410 that is not Google's error (a proxy's page) is not Play saying anything.
        let page = FakeGoogle()
        page.script("GET", subscriptionRoute, .json(410, "<html>Gone</html>"))
        #expect(try withClient(page) { client in refusal { _ = try client.readSubscription(token: token) } }?.verdict == .providerUnavailable)
        for (status, verdict) in [(404, StoreVerdict.providerUnavailable), (403, .internal), (429, .providerUnavailable)] {
            let fake = FakeGoogle()
            fake.script("GET", subscriptionRoute, .googleError(status, "x"))
            let r = try withClient(fake) { client in refusal { _ = try client.readSubscription(token: token) } }
            #expect(r?.verdict == verdict, "\(status)")
        }
    }

    @Test func subscriptionReadAndAcknowledge() throws {
        let fake = FakeGoogle()
        fake.script("GET", subscriptionRoute, .json(200, SubscriptionVerdictTests.answer()))
        fake.script("POST", "purchases/subscriptions/subscr_badge_supporter_01/tokens/\(token):acknowledge", .json(204, ""))
        try withClient(fake) { client in
            guard case .found(let s) = try client.readSubscription(token: token) else { Issue.record("not found"); return }
            #expect(!s.isAcknowledged)
            let c = try s.firstCharge(claimedProductID: "subscr_badge_supporter_01", products: .upstream,
                                      now: SubscriptionVerdictTests.now)
            try client.acknowledgeSubscription(productID: c.charge.productID, token: token)
        }
        #expect(fake.apiCalls.last?.route == "purchases/subscriptions/subscr_badge_supporter_01/tokens/\(token):acknowledge")
    }

    @Test func failedAcknowledgementNamesAcknowledging() throws {
        for (answer, verdict) in [(FakeGoogle.Answer.googleError(403, "permissionDenied"), StoreVerdict.internal),
                                  (.googleError(503, "backendError"), .providerUnavailable)] {
            let fake = FakeGoogle()
            fake.script("POST", productRoute + ":acknowledge", answer)
            let r = try withClient(fake) { client in refusal { try client.acknowledgeOneTime(productID: "badge_supporter_01", token: token) } }
            #expect(r?.verdict == verdict)
            #expect(r?.reason.contains("acknowledging") == true)
        }
    }

    @Test func tokenEndpointFailures() throws {
        for (answer, verdict) in [(FakeGoogle.Answer.json(503, ""), StoreVerdict.providerUnavailable),
                                  (.json(429, ""), .providerUnavailable),
                                  (.json(400, #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#), .internal),
                                  (.json(200, "garbage"), .internal)] {
            let fake = FakeGoogle()
            fake.script("POST", "/token", answer)
            let r = try withClient(fake) { client in refusal { _ = try client.readOneTime(productID: "badge_supporter_01", token: token) } }
            #expect(r?.verdict == verdict, "\(answer.status)")
            #expect(fake.apiCalls.isEmpty)
        }
    }

    @Test func slowGoogleTimesOutAsProviderUnavailable() throws {
        let fake = FakeGoogle()
        fake.script("GET", productRoute, .json(200, purchased, delay: 3))
        let (r, elapsed) = try withClient(fake, timeout: 1) { client in
            let started = Date()
            let r = refusal { _ = try client.readOneTime(productID: "badge_supporter_01", token: token) }
            return (r, Date().timeIntervalSince(started))
        }
        #expect(r?.verdict == .providerUnavailable)
        #expect(elapsed < 2.5, "the client gave up after \(elapsed) s, not near its 1 s timeout")
    }

    /// A success over the cap is internal; an error page over it (a proxy's 502) is an outage.
    @Test func anAnswerOverTheCapIsInternalAndAnErrorPageOverItUnavailable() throws {
        let fake = FakeGoogle()
        let padding = String(repeating: " ", count: 1 << 20)
        fake.script("GET", productRoute, .json(200, purchased + padding), .json(502, "<html>" + padding + "</html>"))
        let (success, errorPage) = try withClient(fake) { client in
            (refusal { _ = try client.readOneTime(productID: "badge_supporter_01", token: token) },
             refusal { _ = try client.readOneTime(productID: "badge_supporter_01", token: token) })
        }
        #expect(success?.verdict == .internal)
        #expect(errorPage?.verdict == .providerUnavailable)
    }

    @Test func nothingIsSentForBadIdentifiersOrAnUnreachableGoogle() throws {
        let fake = FakeGoogle()
        try withClient(fake) { client in
            #expect(refusal { _ = try client.readOneTime(productID: "Badge", token: token) }?.verdict == .receiptInvalid)
            #expect(refusal { _ = try client.readOneTime(productID: "badge_supporter_01", token: "..") }?.verdict == .providerUnavailable)
            #expect(refusal { _ = try client.readSubscription(token: "a/b") }?.verdict == .providerUnavailable)
        }
        #expect(fake.received.isEmpty)
        // A port nothing listens on: closed once the fake has stopped.
        let endpoint = GooglePlayEndpoint(packageName: "chat.simplex.app", apiURL: "http://127.0.0.1:9", tokenURL: "http://127.0.0.1:9/token",
                                          timeoutSeconds: 2)
        let client = GooglePlayClient(endpoint: endpoint, key: PeerServiceAccount.shared.key)
        #expect(refusal { _ = try client.readOneTime(productID: "badge_supporter_01", token: token) }?.verdict == .providerUnavailable)
    }
}

/// The OAuth assertion checked by google-auth itself.
@Suite struct OAuthAssertionPeerTests {
    @Test func googleAuthVerifiesOurAssertionAndAgreesOnItsClaims() throws {
        let fake = FakeGoogle()
        fake.script("GET", productRoute, .json(200, purchased))
        let clock = TestClock(Int64(Date().timeIntervalSince1970))
        try fake.serve { base in
            let endpoint = GooglePlayEndpoint(packageName: fake.package, apiURL: base, tokenURL: base + "/token")
            let client = GooglePlayClient(endpoint: endpoint, key: PeerServiceAccount.shared.key, clock: { clock.now })
            _ = try client.readOneTime(productID: "badge_supporter_01", token: token)
        }
        let audience = "https://oauth2.googleapis.com/token"
        let form = String(decoding: try #require(fake.tokenRequests.first).body, as: UTF8.self)
        let fields = Dictionary(uniqueKeysWithValues: form.split(separator: "&").map { pair in
            let kv = pair.split(separator: "=", maxSplits: 1)
            return (String(kv[0]), String(kv[1]))
        })
        #expect(fields["grant_type"] == "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer")
        let assertion = try #require(fields["assertion"])

        let directory = TemporaryDirectory("google-auth")
        let pemPath = directory.file("public.pem")
        try PeerServiceAccount.shared.publicPEM.write(toFile: pemPath, atomically: true, encoding: .utf8)
        let ours = try JSONValue.parse([UInt8](PeerPython.run(script: "google_auth_peer.py", arguments: ["verify", audience, pemPath],
                                                                input: Data(assertion.utf8))))
        let theirs = try JSONValue.parse([UInt8](PeerPython.run(script: "google_auth_peer.py", arguments: ["assertion", audience],
                                                                  input: Data(PeerServiceAccount.shared.keyJSON.utf8))))
        for claim in ["iss", "scope", "aud"] {
            #expect(ours["claims"]?[claim] == theirs["claims"]?[claim], "\(claim)")
        }
        #expect(ours["claims"]?["iat"]?.numberValue?.exactInt == Int(clock.now))
        #expect(ours["claims"]?["exp"]?.numberValue?.exactInt == Int(clock.now) + 3600)
        let theirLife = (theirs["claims"]?["exp"]?.numberValue?.exactInt ?? 0) - (theirs["claims"]?["iat"]?.numberValue?.exactInt ?? 0)
        #expect(theirLife == 3600)
        for field in ["alg", "typ", "kid"] {
            #expect(ours["header"]?[field] == theirs["header"]?[field], "\(field)")
        }

        // A signature by another key fails google-auth's check: the peer really verifies.
        let other = try JSONValue.parse([UInt8](PeerPython.run(script: "google_auth_peer.py", arguments: ["keygen"])))
        try #require(other["public_pem"]?.stringValue).write(toFile: pemPath, atomically: true, encoding: .utf8)
        #expect(throws: (any Error).self) {
            try PeerPython.run(script: "google_auth_peer.py", arguments: ["verify", audience, pemPath], input: Data(assertion.utf8))
        }
    }
}
