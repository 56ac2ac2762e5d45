import BadgeCore
import Crypto
import Foundation
import JSON
import Schema
import TestSupport
import Testing

/// Issue 35, item 1 on the release binary over HTTP: a repeat by the key a store payment was
/// credited to is answered from the record after `catalog remove-product` retired its product,
/// and the store's fake counts zero calls for it: a Play one-time `purchaseBadge`, and an App
/// Store subscription moved by `transferBadge`.
@Suite(.serialized, .timeLimit(.minutes(5))) struct StoreRecordEndToEndTests {
    static func removeProduct(_ store: String, _ product: String, data: TemporaryDirectory) throws {
        let result = try CLIResult.run(["catalog", "remove-product", "--store", store, "--product", product, "--data", data.file("badge-data")],
                                       executable: try AppStoreEndToEndTests.release)
        #expect(result.status == 0, "\(result.stderr)")
        // Past the running service's products cache (a second).
        Thread.sleep(forTimeInterval: 1.1)
    }

    @Test func aPlayPurchaseRepeatIsAnsweredFromTheRecordAfterItsProductIsRemovedWithoutAskingPlay() throws {
        let fake = FakeGoogle()
        let token = "retired.AO-J1OwE2E_one_time-1"
        fake.script("GET", GooglePlayEndToEndTests.route(token), .json(200, GooglePlayEndToEndTests.purchased))
        fake.script("POST", GooglePlayEndToEndTests.route(token) + ":acknowledge", .json(200, ""))
        try fake.serve { base in
            let data = TemporaryDirectory("e2e-record-google")
            let service = try GooglePlayEndToEndTests.service(fakeAt: base, in: data)
            defer { _ = service.stop() }
            let key = Ed25519PrivateKey(), master = SecureRandom.bytes(32)
            let first = try GooglePlayEndToEndTests.buy(service, token: token, key: key, masterKey: master)
            #expect(first.status == 200 && first.response?.credential != nil, "\(first.text)")
            let calls = fake.apiCalls.count
            try Self.removeProduct("google", GooglePlayEndToEndTests.product, data: data)
            let again = try GooglePlayEndToEndTests.buy(service, token: token, key: key, masterKey: master)
            #expect(again.status == 200 && again.body == first.body, "\(again.text)")
            #expect(fake.apiCalls.count == calls)
            // Another key is judged against today's catalog: the product is gone.
            let other = try GooglePlayEndToEndTests.buy(service, token: token)
            #expect(other.response?.errorCode == .productUnavailable, "\(other.text)")
        }
    }

    @Test func anAppStoreTransferRepeatIsAnsweredFromTheRecordAfterItsProductIsRemovedWithoutAskingApple() async throws {
        let fake = try await onOwnThread { try FakeAppStore() }
        let data = TemporaryDirectory("e2e-record-apple")
        let service = try await onOwnThread { try AppStoreSubscriptionEndToEndTests.service(fake, in: data) }
        defer { _ = service.stop() }
        let nowMs = Int(Date().timeIntervalSince1970) * 1000
        let original = "2000000450000001"
        try fake.script(original, transaction: AppStoreSubscriptionEndToEndTests.charge(nowMs, -1, 29, id: "2000000450000009"))
        let jws = try await onOwnThread {
            try AppStoreSubscriptionEndToEndTests.presented(fake, original: original, transactionId: "2000000450000009", nowMs: nowMs)
        }
        func asked() throws -> Int { try fake.requests().filter { $0["originalTransactionId"]?.stringValue == original }.count }
        let phone = Ed25519PrivateKey(), tablet = Ed25519PrivateKey(), tabletMaster = SecureRandom.bytes(32)
        let bought = try await onOwnThread { try AppStoreEndToEndTests.purchase(service, jws: jws, key: phone, masterKey: SecureRandom.bytes(32)) }
        #expect(bought.status == 200, "\(bought.text)")
        @Sendable func transfer() throws -> HTTPReply {
            try HTTP.rpc(service, HTTP.envelope(["type": "transferBadge", "masterKey": .string(Base64URL.encode(tabletMaster)),
                                                 "payment": ["type": "apple", "jws": .string(jws)]], key: tablet), key: tablet)
        }
        let moved = try await onOwnThread { try transfer() }
        #expect(moved.status == 200 && moved.response?.credential != nil, "\(moved.text)")
        let calls = try asked()
        try await onOwnThread { try Self.removeProduct("apple", "SUBSCR_BADGE_SUPPORTER_MONTH_01", data: data) }
        let again = try await onOwnThread { try transfer() }
        #expect(again.status == 200 && again.body == moved.body, "\(again.text)")
        #expect(try asked() == calls)
    }
}
