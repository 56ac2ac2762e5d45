import AppStore
import BadgeCore
import Foundation
import JSON
import TestSupport
import Testing

/// App Store Server Notifications V2 verified with the purchase path's chain code: signed data
/// made by the test PKI (Tests/Peers/appstore_peer.py), forgeries made by a second one.
@Suite(.timeLimit(.minutes(5))) struct AppStoreNotificationTests {
    static let bundle = "chat.simplex.badges.test"
    static let ms = Int(Date().timeIntervalSince1970) * 1000

    let pki = TemporaryDirectory("appstore-notification")
    let other = TemporaryDirectory("appstore-notification-other")
    let verifier: AppStoreVerifier

    init() throws {
        try PeerPython.run(script: "appstore_peer.py", arguments: ["pki", pki.path])
        try PeerPython.run(script: "appstore_peer.py", arguments: ["pki", other.path])
        let der = try [UInt8](Data(contentsOf: URL(fileURLWithPath: pki.file("root.der"))))
        verifier = AppStoreVerifier(roots: try #require(AppleRootCertificates(der: [der])), bundleId: Self.bundle)
    }

    func sign(_ payload: JSONValue, by directory: TemporaryDirectory? = nil) throws -> String {
        String(decoding: try PeerPython.run(script: "appstore_peer.py", arguments: ["sign", (directory ?? pki).path],
                                            input: Data(payload.serialized())), as: UTF8.self)
    }

    static func transaction(bundle: String = bundle, environment: String = "Production") -> JSONValue {
        ["transactionId": "2000000800000001", "originalTransactionId": "2000000800000001", "bundleId": .string(bundle),
         "productId": "BADGE_SUPPORTER_01", "purchaseDate": .number(JSONNumber(ms - 60_000)), "quantity": 1, "type": "Consumable",
         "inAppOwnershipType": "PURCHASED", "signedDate": .number(JSONNumber(ms)), "environment": .string(environment),
         "revocationDate": .number(JSONNumber(ms - 1000))]
    }

    static func notification(_ type: String = "REFUND", bundle: String = bundle, environment: String = "Production",
                             transaction: String?) -> JSONValue {
        var data: JSONObject = ["environment": .string(environment), "bundleId": .string(bundle), "appAppleId": 1]
        if let transaction { data["signedTransactionInfo"] = .string(transaction) }
        return ["notificationType": .string(type), "notificationUUID": "6a1f0b6e-0000-4000-8000-000000000001", "version": "2.0",
                "signedDate": .number(JSONNumber(ms)), "data": .object(data)]
    }

    @Test func aGenuineRefundIsReadWithItsVerifiedTransaction() throws {
        let signed = try sign(Self.notification(transaction: try sign(Self.transaction())))
        let notification = try verifier.notification(signedPayload: signed)
        #expect(notification.notificationType == "REFUND" && notification.notificationUUID == "6a1f0b6e-0000-4000-8000-000000000001")
        #expect(notification.environment == .production)
        #expect(notification.transaction?.transactionId == "2000000800000001" && notification.transaction?.revocationDate != nil)
        // A TEST notification carries no transaction; a summary no data at all.
        #expect(try verifier.notification(signedPayload: try sign(Self.notification("TEST", transaction: nil))).transaction == nil)
        func summary(_ body: JSONValue?) -> JSONValue {
            var n: JSONObject = ["notificationType": "RENEWAL_EXTENSION", "subtype": "SUMMARY", "notificationUUID": "u-2",
                                 "signedDate": .number(JSONNumber(Self.ms))]
            if let body { n["summary"] = body }
            return .object(n)
        }
        let read = try verifier.notification(signedPayload: try sign(summary(["bundleId": .string(Self.bundle), "succeededCount": 1])))
        #expect(read.environment == nil && read.subtype == "SUMMARY")
        // Without data, the summary names the app: another app's, none, or data null are refused.
        for body: JSONValue? in [["bundleId": "com.example.other", "succeededCount": 1], ["succeededCount": 1], nil] {
            #expect(throws: AppStoreRefusal.self, "\(String(describing: body))") {
                try verifier.notification(signedPayload: try sign(summary(body)))
            }
        }
        var nullData = Self.notification("DID_RENEW", transaction: nil).objectValue!
        nullData["data"] = .null
        #expect(throws: AppStoreRefusal.self) { try verifier.notification(signedPayload: try sign(.object(nullData))) }
    }

    @Test func forgeriesAndOtherAppsAreRefused() throws {
        func refusal(_ signed: String) -> AppStoreRefusal? {
            do { _ = try verifier.notification(signedPayload: signed); return nil } catch { return error }
        }
        let genuine = try sign(Self.transaction())
        // Another PKI's chain: the roots configured do not hold it.
        #expect(refusal(try sign(Self.notification(transaction: genuine), by: other))?.answer == .internal)
        // A genuine payload around a transaction of another PKI.
        #expect(refusal(try sign(Self.notification(transaction: try sign(Self.transaction(), by: other))))?.answer == .internal)
        // Another app: the notification's bundle, or its transaction's.
        #expect(refusal(try sign(Self.notification(bundle: "com.example.other", transaction: genuine)))?.reason.contains("bundleId") == true)
        #expect(refusal(try sign(Self.notification(transaction: try sign(Self.transaction(bundle: "com.example.other")))))?
            .reason.contains("bundleId") == true)
        // A transaction of another environment than its notification.
        #expect(refusal(try sign(Self.notification(transaction: try sign(Self.transaction(environment: "Sandbox")))))?
            .reason.contains("environment") == true)
        // A payload tampered with after signing.
        let parts = try sign(Self.notification(transaction: genuine)).split(separator: ".").map(String.init)
        let tampered = Base64URL.encode(Array(Self.notification("DID_RENEW", transaction: genuine).serialized()))
        #expect(refusal([parts[0], tampered, parts[2]].joined(separator: "."))?.answer == .receiptInvalid)
        #expect(refusal("not a jws")?.answer == .receiptInvalid)
    }
}
