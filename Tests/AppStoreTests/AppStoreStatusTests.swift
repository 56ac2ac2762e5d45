import AppStore
import BadgeCore
import Foundation
import JSON
import TestSupport
import Testing

/// Get All Subscription Statuses answers classified as the spec's App Store list says for a
/// subscription's status; signed data made by the test PKI (Tests/Peers/appstore_peer.py).
@Suite(.timeLimit(.minutes(5))) struct AppStoreStatusTests {
    static let bundle = "chat.simplex.badges.test"
    static let original = "2000000700000001"
    static let now = Timestamp(seconds: Int64(Date().timeIntervalSince1970))

    let pki = TemporaryDirectory("appstore-status")
    let verifier: AppStoreVerifier

    init() throws {
        try PeerPython.run(script: "appstore_peer.py", arguments: ["pki", pki.path])
        let der = try [UInt8](Data(contentsOf: URL(fileURLWithPath: pki.file("root.der"))))
        verifier = AppStoreVerifier(roots: try #require(AppleRootCertificates(der: [der])), bundleId: Self.bundle)
    }

    func sign(_ payload: JSONValue) throws -> String {
        String(decoding: try PeerPython.run(script: "appstore_peer.py", arguments: ["sign", pki.path], input: Data(payload.serialized())),
               as: UTF8.self)
    }

    func transaction(environment: String = "Production", ownership: String = "PURCHASED", original: String = original) -> JSONValue {
        let ms = Int(Self.now.seconds) * 1000
        return ["transactionId": "2000000700000009", "originalTransactionId": .string(original), "bundleId": .string(Self.bundle),
                "productId": "SUBSCR_BADGE_SUPPORTER_MONTH_01", "purchaseDate": .number(JSONNumber(ms - 86_400_000)),
                "expiresDate": .number(JSONNumber(ms + 29 * 86_400_000)), "quantity": 1, "type": "Auto-Renewable Subscription",
                "inAppOwnershipType": .string(ownership), "signedDate": .number(JSONNumber(ms)), "environment": .string(environment)]
    }

    func renewal(environment: String = "Production", original: String = original) -> JSONValue {
        ["originalTransactionId": .string(original), "productId": "SUBSCR_BADGE_SUPPORTER_MONTH_01", "autoRenewStatus": 1,
         "signedDate": .number(JSONNumber(Int(Self.now.seconds) * 1000)), "environment": .string(environment)]
    }

    func body(status: Int = 1, environment: String = "Production", bundle: String = bundle, transactionJWS: String? = nil,
              tx: JSONValue? = nil, others: [JSONValue] = []) throws -> [UInt8] {
        let entry: JSONValue = ["originalTransactionId": .string(Self.original), "status": .number(JSONNumber(status)),
                                "signedTransactionInfo": .string(try transactionJWS ?? sign(tx ?? transaction())),
                                "signedRenewalInfo": .string(try sign(renewal()))]
        let document: JSONValue = ["environment": .string(environment), "bundleId": .string(bundle), "appAppleId": 1234,
                                   "data": [["subscriptionGroupIdentifier": "21000001", "lastTransactions": .array(others + [entry])]]]
        return document.serialized()
    }

    func verdict(_ status: Int = 200, _ body: [UInt8] = [], retryAfter: String? = nil) -> AppStoreStatusVerdict {
        verifier.statusVerdict(httpStatus: status, retryAfterHeader: retryAfter, body: body, originalTransactionId: Self.original,
                               now: Self.now)
    }

    func answer(_ v: AppStoreStatusVerdict) -> String {
        switch v {
        case .read: "read"
        case .refused(let r): r.answer.rawValue
        case .unavailable: "provider_unavailable"
        }
    }

    @Test func anActiveSubscriptionIsRead() throws {
        // An unreadable entry for another subscription is ignored.
        guard case .read(let read) = verdict(200, try body(others: [["originalTransactionId": "1", "status": "x"]])) else {
            Issue.record("not read")
            return
        }
        #expect(read.status == .active)
        #expect(read.transaction.productId == "SUBSCR_BADGE_SUPPORTER_MONTH_01")
        #expect(read.renewal.autoRenews)
    }

    @Test func everyStatusPathVerdictIsInItsClass() throws {
        #expect(answer(verdict(404, Array(#"{"errorCode":4040010,"errorMessage":"x"}"#.utf8))) == "provider_unavailable")
        #expect(answer(verdict(500)) == "provider_unavailable")
        #expect(answer(verdict(401)) == "internal")
        #expect(answer(verdict(403)) == "internal")
        let later = String((Self.now.seconds + 120) * 1000)
        #expect(verdict(429, retryAfter: later) == .unavailable(reason: "the App Store Server API answered 429", retryAfter: 120))
        // Whatever the header says, the wait is 1 s to a day, and a number near Int64.max does not trap.
        let waits: [(String, Int64?)] = [(" \(later) ", 120), (String((Self.now.seconds + 119) * 1000 + 1), 120),
                                         (String((Self.now.seconds + 7200) * 1000), 7200),
                                         (String(Int64.max), 86_400), (String((Self.now.seconds + 90_000) * 1000), 86_400),
                                         (String(Int64.min), 1), ("0", 1), ("soon", nil), ("", nil)]
        for (header, seconds) in waits {
            #expect(verdict(503, retryAfter: header) == .unavailable(reason: "the App Store Server API answered 503", retryAfter: seconds),
                    "Retry-After: \(header)")
        }
        // An answer that names no such subscription is no more certain than a 404.
        let elsewhere = ["environment": "Production", "bundleId": .string(Self.bundle), "data": []] as JSONValue
        #expect(answer(verdict(200, elsewhere.serialized())) == "provider_unavailable")
        // Its reason, which the log shows, does not name the subscription asked about.
        if case .unavailable(let reason, _) = verdict(200, elsewhere.serialized()) { #expect(!reason.contains(Self.original)) }
        #expect(answer(verdict(200, Array("not json".utf8))) == "internal")
        #expect(answer(verdict(200, try body(environment: "Sandbox"))) == "test_purchase")
        #expect(answer(verdict(200, try body(tx: transaction(environment: "Sandbox")))) == "test_purchase")
        #expect(answer(verdict(200, try body(tx: transaction(ownership: "FAMILY_SHARED")))) == "receipt_invalid")
        #expect(answer(verdict(200, try body(status: 9))) == "internal")
        #expect(answer(verdict(200, try body(bundle: "com.example.other"))) == "internal")
        #expect(answer(verdict(200, try body(environment: "Xcode"))) == "internal")
        // Signed data that fails a check is internal, never receipt_invalid: no client presented it.
        var forged = Array(try sign(transaction()).utf8)
        forged[forged.count - 5] = forged[forged.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(answer(verdict(200, try body(transactionJWS: String(decoding: forged, as: UTF8.self)))) == "internal")
        #expect(answer(verdict(200, try body(tx: transaction(original: "2000000700000002")))) == "internal")
        #expect(!AppStoreVerifier.isValidOriginalTransactionId("12a4"))
        #expect(!AppStoreVerifier.isValidOriginalTransactionId("../1"))
        #expect(AppStoreVerifier.isValidOriginalTransactionId(Self.original))
    }
}
