import AppStore
import BadgeCore
import Foundation
import JSON
import Testing
import TestSupport
@testable import Wallet

/// An App Store coin purchase against the fake App Store Server API (Tests/Peers/fake_appstore.py)
/// over real HTTP: the client's JWS read only for its id, Apple's own record fetched with Get
/// Transaction Info (production, then the sandbox on 404 and on 401), verified with the chain
/// code, and judged: consumable, a known pack, the pack named, not revoked.
@Suite(.serialized, .timeLimit(.minutes(5))) struct AppleCoinPurchaseTests {
    let fake: FakeAppStore

    init() async throws { fake = try await onOwnThread { try FakeAppStore() } }

    func harness(productionURL: String? = nil, sandbox: Bool = true, requireBinding: Bool = false) throws -> WalletHarness {
        let key = try AppStoreAPIKey(p8: try fake.privateKeyPEM, keyId: fake.keyId, issuerId: fake.issuerId, bundleId: fake.bundleId)
        let roots = try #require(AppleRootCertificates(der: [try fake.rootDER]))
        let api = AppStoreServerAPI(key: key, verifier: AppStoreVerifier(roots: roots, bundleId: fake.bundleId),
                                    productionURL: productionURL ?? fake.productionURL, sandboxURL: fake.sandboxURL, timeoutSeconds: 2)
        return try WalletHarness(stores: CoinStores(appStore: api, creditsSandbox: sandbox, requiresAccountBinding: requireBinding))
    }

    /// What a device presents: a JWS whose payload names the transaction. Its signature is never
    /// checked (only Apple's answer is), so a client's own is as good as any.
    static func presented(_ transactionId: String) -> String {
        let payload = JSONValue.object(["transactionId": .string(transactionId), "type": "Consumable"]).serialized()
        return Base64URL.encode(Array(#"{"alg":"ES256"}"#.utf8), padded: false) + "." + Base64URL.encode(payload, padded: false) + ".c2ln"
    }

    static func apple(_ pack: String, _ transactionId: String) -> JSONValue {
        ["packId": .string(pack), "payment": ["type": "apple", "signedTransaction": .string(presented(transactionId))]]
    }

    func environmentsAsked(_ id: String) throws -> [String] {
        try fake.requests().filter { $0["originalTransactionId"]?.stringValue == id && $0["route"]?.stringValue == "transactions" }
            .compactMap { $0["environment"]?.stringValue }
    }

    @Test func aProductionPurchaseIsCreditedOnceFromApplesOwnRecord() async throws {
        try fake.scriptTransaction("2000000900000001", transaction: ["productId": "COINS_HUGE_01"])
        let h = try harness()
        let first = try await onOwnThread { h.purchase(Self.apple("huge", "2000000900000001"), account: Accounts.alice) }
        #expect(first.answer.status == 200, "\(String(decoding: first.answer.body, as: UTF8.self))")
        #expect(first.json?["purchase"]?["coins"]?.numberValue?.exactInt == 4_850)
        #expect(first.json?["purchase"]?["externalRef"]?.stringValue == "2000000900000001")
        // The same account's replay is answered from its row before Apple is asked (so an outage
        // or a later revocation cannot change it); another account's is judged by Apple's record.
        let again = try await onOwnThread { h.purchase(Self.apple("huge", "2000000900000001"), account: Accounts.alice) }
        #expect(again.answer.body == first.answer.body)
        #expect(try environmentsAsked("2000000900000001") == ["production"])
        let other = try await onOwnThread { h.purchase(Self.apple("huge", "2000000900000001"), account: Accounts.bob) }
        #expect(other.json?.errorCode == "receipt_used")
        #expect(h.balance(Accounts.alice) == (4_850, 0, 1))
        #expect(try environmentsAsked("2000000900000001") == ["production", "production"])
        #expect(try fake.requests().allSatisfy { $0["tokenAccepted"] == .bool(true) })
    }

    @Test func aSandboxOnlyPurchaseIsFoundThroughTheFallthroughOn404AndOn401() async throws {
        try fake.scriptTransaction("2000000900000002", environment: "sandbox", transaction: ["productId": "COINS_STARTER_01"])
        try fake.scriptTransaction("2000000900000003", environment: "production", mode: "401")
        try fake.scriptTransaction("2000000900000003", environment: "sandbox", transaction: ["productId": "COINS_STARTER_01"])
        let h = try harness()
        for id in ["2000000900000002", "2000000900000003"] {
            let reply = try await onOwnThread { h.purchase(Self.apple("starter", id), account: Accounts.alice) }
            #expect(reply.answer.status == 200, "\(id): \(String(decoding: reply.answer.body, as: UTF8.self))")
            #expect(try environmentsAsked(id) == ["production", "sandbox"])
        }
        #expect(h.balance(Accounts.alice) == (180, 0, 2))
        // Neither environment holds it: production's 404 stands, as provider_unavailable (Apple
        // can miss a transaction for a while right after its purchase), and nothing is credited.
        let unknown = try await onOwnThread { h.purchase(Self.apple("starter", "2000000900000004"), account: Accounts.alice) }
        #expect(unknown.answer.status == 503 && unknown.json?.errorCode == "provider_unavailable")
        #expect(try environmentsAsked("2000000900000004") == ["production", "sandbox"])
    }

    /// A Sandbox purchase (App Review's, TestFlight's) is paid by nobody: its coins are credited
    /// with `[wallet] sandbox` on (the default), the row records Sandbox with gross and net 0,
    /// and its reversal too; with it off the purchase is test_purchase and nothing is written.
    @Test func aSandboxPurchaseIsRecordedAsSandboxWithNoMoneyAndRefusedWhenSandboxIsOff() async throws {
        try fake.scriptTransaction("2000000900000020", environment: "sandbox", transaction: ["productId": "COINS_WHALE_01"])
        try fake.scriptTransaction("2000000900000021", transaction: ["productId": "COINS_WHALE_01"])
        let h = try harness()
        let sandbox = try await onOwnThread { h.purchase(Self.apple("whale", "2000000900000020"), account: Accounts.alice) }
        #expect(sandbox.answer.result == "credited", "\(String(decoding: sandbox.answer.body, as: UTF8.self))")
        #expect(sandbox.json?["purchase"]?["coins"]?.numberValue?.exactInt == 9_750)
        #expect(sandbox.json?["purchase"]?["grossUsdCents"]?.numberValue?.exactInt == 0)
        #expect(sandbox.json?["purchase"]?["netUsdCents"]?.numberValue?.exactInt == 0)
        let paid = try await onOwnThread { h.purchase(Self.apple("whale", "2000000900000021"), account: Accounts.alice) }
        #expect(paid.json?["purchase"]?["grossUsdCents"]?.numberValue?.exactInt == 9_999)
        let rows = try h.store.readWallet { try $0.coinRows(account: Accounts.alice, limit: 10) }
        #expect(rows.map(\.environment) == [.production, .sandbox])
        // Money summed over the rows counts only what someone paid.
        #expect(rows.map(\.grossUsdCents).reduce(0, +) == 9_999 && rows.map(\.netUsdCents).reduce(0, +) == 6_999)
        guard case .reversed(let reversal) = try h.wallet.reverse(channel: "apple", externalRef: "2000000900000020") else {
            Issue.record("not reversed")
            return
        }
        #expect(reversal.environment == .sandbox && reversal.grossUsdCents == 0 && reversal.coins == -9_750)

        let off = try harness(sandbox: false)
        try fake.scriptTransaction("2000000900000022", environment: "sandbox", transaction: ["productId": "COINS_WHALE_01"])
        let refused = try await onOwnThread { off.purchase(Self.apple("whale", "2000000900000022"), account: Accounts.alice) }
        #expect(refused.answer.status == 422 && refused.json?.errorCode == "test_purchase",
                "\(String(decoding: refused.answer.body, as: UTF8.self))")
        #expect(off.balance(Accounts.alice) == (0, 0, 0))
        #expect(off.log.contains("[wallet] sandbox is off"))
        // Production purchases are credited as ever with it off.
        try fake.scriptTransaction("2000000900000023", transaction: ["productId": "COINS_WHALE_01"])
        let production = try await onOwnThread { off.purchase(Self.apple("whale", "2000000900000023"), account: Accounts.alice) }
        #expect(production.answer.result == "credited")
    }

    /// Apple's `appAccountToken` must be the buyer's account UUID: one who learnt another's
    /// transaction id cannot claim its coins (receipt_used, nothing credited), the buyer then
    /// can; `require_account_binding` refuses a transaction without a token, receipt_invalid.
    @Test func anAppStorePurchaseBoundToAnotherAccountIsRefusedAndBindingCanBeRequired() async throws {
        let alice = try #require(AccountBinding.uuid(account: Accounts.alice))
        try fake.scriptTransaction("2000000900000030", transaction: ["productId": "COINS_SMALL_01", "appAccountToken": .string(alice)])
        try fake.scriptTransaction("2000000900000031", transaction: ["productId": "COINS_SMALL_01"])
        let h = try harness()
        let stolen = try await onOwnThread { h.purchase(Self.apple("small", "2000000900000030"), account: Accounts.bob) }
        #expect(stolen.answer.status == 409 && stolen.json?.errorCode == "receipt_used",
                "\(String(decoding: stolen.answer.body, as: UTF8.self))")
        #expect(h.balance(Accounts.bob) == (0, 0, 0))
        let own = try await onOwnThread { h.purchase(Self.apple("small", "2000000900000030"), account: Accounts.alice) }
        #expect(own.answer.result == "credited")

        let strict = try harness(requireBinding: true)
        let unbound = try await onOwnThread { strict.purchase(Self.apple("small", "2000000900000031"), account: Accounts.alice) }
        #expect(unbound.answer.status == 422 && unbound.json?.errorCode == "receipt_invalid")
        let bound = try await onOwnThread { strict.purchase(Self.apple("small", "2000000900000030"), account: Accounts.alice) }
        #expect(bound.answer.result == "credited")
        #expect(strict.balance(Accounts.alice) == (475, 0, 1))
    }

    @Test func revokedWrongTypeUnknownProductAndAnotherPacksTransactionAreRefused() async throws {
        let now = Int(Date().timeIntervalSince1970) * 1000
        let cases: [(id: String, pack: String, fields: JSONObject, status: Int, code: String)] = [
            ("2000000900000010", "starter", ["productId": "COINS_STARTER_01", "revocationDate": .number(JSONNumber(now)),
                                             "revocationReason": 0], 422, "receipt_invalid"),
            ("2000000900000011", "starter", ["productId": "COINS_STARTER_01", "type": "Non-Consumable"], 422, "receipt_invalid"),
            // A real purchase of another product (here a badge) is not the named pack, and not forged.
            ("2000000900000012", "starter", ["productId": "BADGE_SUPPORTER_01"], 422, "pack_mismatch"),
            // The starter's transaction presented as the whale.
            ("2000000900000013", "whale", ["productId": "COINS_STARTER_01"], 422, "pack_mismatch"),
            ("2000000900000014", "starter", ["productId": "COINS_STARTER_01", "bundleId": "com.example.other"], 500, "internal"),
        ]
        for c in cases { try fake.scriptTransaction(c.id, transaction: c.fields) }
        try fake.scriptTransaction("2000000900000015", mode: "503")
        let h = try harness()
        for c in cases {
            let reply = try await onOwnThread { h.purchase(Self.apple(c.pack, c.id), account: Accounts.alice) }
            let text = String(decoding: reply.answer.body, as: UTF8.self)
            #expect(reply.answer.status == c.status && reply.json?.errorCode == c.code, "\(c.id): \(text)")
            // Which check refused stays in the log: the client reads the code's one message.
            for detail in ["revoked", "Consumable", "consumable", "bundle", "starter", "whale", "BADGE"] {
                #expect(!text.contains(detail), "\(c.id): \(text)")
            }
        }
        let down = try await onOwnThread { h.purchase(Self.apple("starter", "2000000900000015"), account: Accounts.alice) }
        #expect(down.answer.status == 503 && down.json?.errorCode == "provider_unavailable" && down.answer.retryAfter == 60)
        let garbage = h.purchase(["packId": "starter", "payment": ["type": "apple", "signedTransaction": "not a jws"]], account: Accounts.alice)
        #expect(garbage.json?.errorCode == "receipt_invalid")
        let letters = h.purchase(Self.apple("starter", "20000abc"), account: Accounts.alice)
        #expect(letters.json?.errorCode == "receipt_invalid")
        #expect(h.balance(Accounts.alice) == (0, 0, 0))
        #expect(try fake.requests().allSatisfy { $0["originalTransactionId"]?.stringValue != "20000abc" })
    }
}
