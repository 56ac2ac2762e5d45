import BadgeCore
import Crypto
import Foundation
import JSON
import Storage
import Testing
import TestSupport
@testable import Wallet

/// The wallet's rules over a real SQLite database and the fake Google on 127.0.0.1: a Play
/// purchase credited once, replayed to its account, refused to another; Play's classes; dev
/// grants only when on; bodies validated against the contract; refunds reversed once.
@Suite(.serialized) struct WalletServiceTests {
    static let purchased = #"{"kind":"androidpublisher#productPurchase","purchaseTimeMillis":"1773140000000","purchaseState":0,"consumptionState":0,"acknowledgementState":0,"orderId":"GPA.3301-0001"}"#

    static func google(_ pack: String, _ token: String) -> JSONValue {
        ["packId": .string(pack), "payment": ["type": "google", "purchaseToken": .string(token)]]
    }

    @Test func aPlayPurchaseIsCreditedOnceReplayedToItsAccountAndRefusedToAnother() throws {
        let fake = FakeGoogle()
        fake.script("GET", "purchases/products/coins_medium_01/tokens/tok.medium", .json(200, Self.purchased))
        try fake.serve { base in
            let h = try WalletHarness(stores: CoinStores(googlePlay: try WalletHarness.playClient(fake, base)))
            let first = h.purchase(Self.google("medium", "tok.medium"), account: Accounts.alice)
            #expect(first.answer.status == 200 && first.answer.result == "credited", "\(String(decoding: first.answer.body, as: UTF8.self))")
            let row = try #require(first.json?["purchase"])
            #expect(row["coins"]?.numberValue?.exactInt == 960 && row["grossUsdCents"]?.numberValue?.exactInt == 999)
            #expect(row["netUsdCents"]?.numberValue?.exactInt == 699 && row["externalRef"]?.stringValue == "GPA.3301-0001")
            #expect(WalletSchema.shared.validate(first.json!, definition: "walletPurchase") == [])

            let again = h.purchase(Self.google("medium", "tok.medium"), account: Accounts.alice)
            #expect(again.answer.status == 200 && again.answer.body == first.answer.body && again.answer.result == "replayed")
            let other = h.purchase(Self.google("medium", "tok.medium"), account: Accounts.bob)
            #expect(other.answer.status == 409 && other.json?.errorCode == "receipt_used")
            #expect(h.balance(Accounts.alice) == (960, 0, 1))
            #expect(h.balance(Accounts.bob) == (0, 0, 0))
            // Play was asked with the pack's own product id, for the first credit and for the other
            // account (the same account's repeat is answered from its row).
            #expect(fake.apiCalls.map(\.route) == Array(repeating: "purchases/products/coins_medium_01/tokens/tok.medium", count: 2))

            // The medium pack's token presented as the whale: Play knows no such purchase of that product.
            let bigger = h.purchase(Self.google("whale", "tok.medium"), account: Accounts.alice)
            #expect(bigger.answer.status == 503 && bigger.json?.errorCode == "provider_unavailable")
            #expect(fake.apiCalls.last?.route == "purchases/products/coins_whale_01/tokens/tok.medium")
            #expect(h.balance(Accounts.alice).balance == 960)
            #expect(!h.log.contains("tok.medium"))
        }
    }

    /// The design's "same account replays → original result returned": the buyer's repeat of a
    /// Play token is found by the token's digest and answered from its row before Play is asked,
    /// so it holds while Play is down; another account's is still judged by Play (receipt_used).
    @Test func aPlayReplayBySameAccountIsAnsweredFromItsRowBeforePlayIsAsked() throws {
        let fake = FakeGoogle()
        let route = "purchases/products/coins_small_01/tokens/tok.replay"
        fake.script("GET", route, .json(200, Self.purchased))
        try fake.serve { base in
            let h = try WalletHarness(stores: CoinStores(googlePlay: try WalletHarness.playClient(fake, base)))
            let first = h.purchase(Self.google("small", "tok.replay"), account: Accounts.alice)
            #expect(first.answer.result == "credited", "\(String(decoding: first.answer.body, as: UTF8.self))")
            #expect(fake.apiCalls.count == 1)
            let again = h.purchase(Self.google("small", "tok.replay"), account: Accounts.alice)
            #expect(again.answer.status == 200 && again.answer.result == "replayed" && again.answer.body == first.answer.body)
            #expect(fake.apiCalls.count == 1)
            // Play down: the owner's replay is still the original row, and Play is not asked.
            fake.script("GET", route, .googleError(503, "backendError"))
            let down = h.purchase(Self.google("small", "tok.replay"), account: Accounts.alice)
            #expect(down.answer.status == 200 && down.answer.body == first.answer.body, "\(String(decoding: down.answer.body, as: UTF8.self))")
            #expect(fake.apiCalls.count == 1)
            // Another account, or the token named under another pack: Play decides (here: down).
            let other = h.purchase(Self.google("small", "tok.replay"), account: Accounts.bob)
            #expect(other.answer.status == 503 && other.json?.errorCode == "provider_unavailable")
            let otherPack = h.purchase(Self.google("medium", "tok.replay"), account: Accounts.alice)
            #expect(otherPack.answer.status == 503)
            #expect(fake.apiCalls.count == 3)
            #expect(h.balance(Accounts.alice) == (475, 0, 1))
            // The row holds the token's digest, never the token.
            let row = try #require(try h.store.readWallet { try $0.coinRows(account: Accounts.alice, limit: 1) }.first)
            #expect(row.tokenSHA256 == Base64URL.encode(SHA256.hash(Array("tok.replay".utf8)), padded: false))
            #expect(row.environment == .production && row.entryKey.contains("tok.replay") == false)
        }
    }

    /// Play's `obfuscatedExternalAccountId` (set by the app with `setObfuscatedAccountId`) must be
    /// the buyer's account UUID: another account's is receipt_used and credits nothing; the
    /// buyer's own is credited; and `require_account_binding` refuses a purchase without one.
    @Test func aPlayPurchaseBoundToAnotherAccountIsRefusedAndBindingCanBeRequired() throws {
        func bound(_ id: String, order: String) -> String {
            Self.purchased.replacingOccurrences(of: #""orderId":"GPA.3301-0001""#,
                                                with: #""orderId":"\#(order)","obfuscatedExternalAccountId":"\#(id)""#)
        }
        let alice = try #require(AccountBinding.uuid(account: Accounts.alice))
        let bob = try #require(AccountBinding.uuid(account: Accounts.bob))
        let fake = FakeGoogle()
        fake.script("GET", "purchases/products/coins_small_01/tokens/t.bob", .json(200, bound(bob, order: "GPA.b")))
        fake.script("GET", "purchases/products/coins_small_01/tokens/t.alice", .json(200, bound(alice.uppercased(), order: "GPA.a")))
        fake.script("GET", "purchases/products/coins_small_01/tokens/t.unbound", .json(200, Self.purchased))
        try fake.serve { base in
            let h = try WalletHarness(stores: CoinStores(googlePlay: try WalletHarness.playClient(fake, base)))
            let stolen = h.purchase(Self.google("small", "t.bob"), account: Accounts.alice)
            #expect(stolen.answer.status == 409 && stolen.json?.errorCode == "receipt_used")
            #expect(h.purchase(Self.google("small", "t.alice"), account: Accounts.alice).answer.result == "credited")
            #expect(h.purchase(Self.google("small", "t.unbound"), account: Accounts.alice).answer.result == "credited")
            #expect(h.balance(Accounts.alice) == (950, 0, 2))
            #expect(h.purchase(Self.google("small", "t.bob"), account: Accounts.bob).answer.result == "credited")

            var strict = CoinStores(googlePlay: try WalletHarness.playClient(fake, base))
            strict.requiresAccountBinding = true
            let s = try WalletHarness(stores: strict)
            let unbound = s.purchase(Self.google("small", "t.unbound"), account: Accounts.alice)
            #expect(unbound.answer.status == 422 && unbound.json?.errorCode == "receipt_invalid")
            #expect(s.purchase(Self.google("small", "t.alice"), account: Accounts.alice).answer.result == "credited")
            #expect(s.balance(Accounts.alice) == (475, 0, 1))
            #expect(s.log.contains("require_account_binding") && h.log.contains("another account"))
        }
    }

    /// The account UUID the app sets: SHA-256 of the domain and the raw key, first 16 bytes, as a
    /// version 8 UUID; the same for the account text and the raw key; distinct per key.
    @Test func theAccountUUIDIsAVersion8UUIDOfTheKeysHash() throws {
        let raw = [UInt8](repeating: 0, count: 32)
        let uuid = try #require(AccountBinding.uuid(account: Accounts.alice))
        #expect(uuid == AccountBinding.uuid(rawPublicKey: raw))
        var expected = Array(SHA256.hash(Array("simplex-coin-wallet-account-v1:".utf8) + raw).prefix(16))
        expected[6] = expected[6] & 0x0f | 0x80
        expected[8] = expected[8] & 0x3f | 0x80
        #expect(uuid.replacingOccurrences(of: "-", with: "") == expected.map { String(format: "%02x", $0) }.joined())
        // Computed apart, with Python's hashlib and uuid (the README shows the same recipe).
        #expect(uuid == "8688a808-bf68-8e09-88ae-fca798739b25")
        #expect(uuid.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12])
        #expect(Array(uuid)[14] == "8" && "89ab".contains(Array(uuid)[19]))
        #expect(uuid != AccountBinding.uuid(account: Accounts.bob))
        #expect(AccountBinding.uuid(account: "not a key") == nil)
    }

    @Test func playsPendingCanceledAndTestPurchasesAreAnsweredInTheirClassesAndCreditNothing() throws {
        func answer(_ fields: String) -> FakeGoogle.Answer {
            .json(200, Self.purchased.replacingOccurrences(of: #""purchaseState":0"#, with: fields))
        }
        let fake = FakeGoogle()
        fake.script("GET", "purchases/products/coins_starter_01/tokens/t.pending", answer(#""purchaseState":2"#))
        fake.script("GET", "purchases/products/coins_starter_01/tokens/t.canceled", answer(#""purchaseState":1"#))
        fake.script("GET", "purchases/products/coins_starter_01/tokens/t.test", answer(#""purchaseState":0,"purchaseType":0"#))
        fake.script("GET", "purchases/products/coins_starter_01/tokens/t.500", .googleError(500, "backendError"))
        try fake.serve { base in
            let h = try WalletHarness(stores: CoinStores(googlePlay: try WalletHarness.playClient(fake, base)))
            let expected: [(String, Int, String, UInt32?)] = [("t.pending", 409, "payment_pending", 3600), ("t.canceled", 422, "receipt_invalid", nil),
                                                             ("t.test", 422, "test_purchase", nil), ("t.500", 503, "provider_unavailable", 60)]
            for (token, status, code, retryAfter) in expected {
                let reply = h.purchase(Self.google("starter", token), account: Accounts.alice)
                #expect(reply.answer.status == status && reply.json?.errorCode == code && reply.answer.retryAfter == retryAfter, "\(token)")
                #expect(reply.json.map { WalletSchema.shared.validate($0, definition: "walletError") } == [], "\(token)")
            }
            #expect(h.balance(Accounts.alice) == (0, 0, 0))
            #expect(h.log.contains("purchaseState pending") && !h.log.contains("t.pending"))
        }
    }

    @Test func devGrantsAreRefusedByDefaultAndGrantOnlyWhenOn() throws {
        let off = try WalletHarness()
        let refused = off.purchase(["packId": "small"], account: Accounts.alice)
        #expect(refused.answer.status == 403 && refused.json?.errorCode == "dev_grants_disabled")
        #expect(off.balance(Accounts.alice) == (0, 0, 0))

        let on = try WalletHarness(allowsDevGrants: true)
        let granted = on.purchase(["packId": "small"], account: Accounts.alice)
        #expect(granted.answer.status == 200 && granted.json?["purchase"]?["kind"]?.stringValue == "dev_grant")
        #expect(granted.json?["purchase"]?["grossUsdCents"]?.numberValue?.exactInt == 0)
        _ = on.purchase(["packId": "small"], account: Accounts.alice)
        #expect(on.balance(Accounts.alice) == (950, 0, 2))
        // No store configured: a store payload is not a dev grant.
        let apple = on.purchase(["packId": "small", "payment": ["type": "apple", "signedTransaction": "a.b.c"]], account: Accounts.alice)
        #expect(apple.answer.status == 501 && apple.json?.errorCode == "provider_not_configured")
    }

    @Test func bodiesOutsideTheContractAreBadRequestsAndUnknownPacksRefused() throws {
        let h = try WalletHarness(allowsDevGrants: true)
        let bad: [String] = ["", "[]", "{}", #"{"packId":1}"#, #"{"packId":"small","extra":true}"#,
                             #"{"packId":"small","payment":{"type":"paypal"}}"#, #"{"packId":"small","payment":{"type":"google"}}"#,
                             #"{"packId":"small","payment":{"type":"apple","purchaseToken":"x"}}"#]
        for body in bad {
            let answer = h.wallet.purchase(body: Array(body.utf8), account: Accounts.alice)
            #expect(answer.status == 400 && answer.result == "bad_request", "\(body)")
        }
        let unknown = h.purchase(["packId": "platinum"], account: Accounts.alice)
        #expect(unknown.answer.status == 404 && unknown.json?.errorCode == "unknown_pack")
        #expect(h.balance(Accounts.alice) == (0, 0, 0))
        // A refusal never echoes what was sent: a 60 KB id gets the same short answer.
        let long = String(repeating: "p", count: 60_000)
        let echoed = h.purchase(["packId": .string(long)], account: Accounts.alice)
        #expect(echoed.json?.errorCode == "unknown_pack")
        #expect(echoed.answer.body.count == unknown.answer.body.count, "\(echoed.answer.body.count) bytes")
    }

    @Test func aRefundReversesItsPurchaseOnceAndNothingElse() throws {
        let fake = FakeGoogle()
        fake.script("GET", "purchases/products/coins_large_01/tokens/t.large", .json(200, Self.purchased))
        try fake.serve { base in
            let h = try WalletHarness(stores: CoinStores(googlePlay: try WalletHarness.playClient(fake, base)), allowsDevGrants: true)
            _ = h.purchase(["packId": "starter"], account: Accounts.alice)
            #expect(h.purchase(Self.google("large", "t.large"), account: Accounts.alice).answer.status == 200)
            #expect(h.balance(Accounts.alice) == (2_020, 0, 2))

            #expect(try h.wallet.reverse(channel: "google", externalRef: "GPA.unknown") == .unknownPurchase)
            #expect(try h.wallet.reverse(channel: "apple", externalRef: "GPA.3301-0001") == .unknownPurchase)
            guard case .reversed(let row) = try h.wallet.reverse(channel: "google", externalRef: "GPA.3301-0001") else {
                Issue.record("not reversed")
                return
            }
            #expect(row.kind == .reversal && row.coins == -1_930 && row.account == Accounts.alice && row.grossUsdCents == 1_999)
            #expect(try h.wallet.reverse(channel: "google", externalRef: "GPA.3301-0001") == .alreadyReversed)
            #expect(h.balance(Accounts.alice) == (90, 0, 3))
            // The refunded purchase presented again: Play still says purchased, the wallet credits nothing more.
            let again = h.purchase(Self.google("large", "t.large"), account: Accounts.alice)
            #expect(again.answer.result == "replayed" && h.balance(Accounts.alice).balance == 90)
        }
    }

    /// Voided before it was presented (the notice recorded it, as the badge ledger's listener
    /// does for every one-time purchase it did not credit): Play still calls it purchased, and the
    /// wallet credits nothing, receipt_invalid. Another token is credited as ever.
    @Test func aPurchaseRefundedBeforeItIsPresentedIsNotCredited() throws {
        let fake = FakeGoogle()
        fake.script("GET", "purchases/products/coins_large_01/tokens/t.early", .json(200, Self.purchased))
        try fake.serve { base in
            let h = try WalletHarness(stores: CoinStores(googlePlay: try WalletHarness.playClient(fake, base)))
            let digest = Base64URL.encode(SHA256.hash(Array("t.early".utf8)), padded: false)
            #expect(try h.store.write { try $0.recordRefund(ProviderRefund(provider: "google", kind: .payment, reference: digest), at: Timestamp(seconds: 0)) })
            let refused = h.purchase(Self.google("large", "t.early"), account: Accounts.alice)
            #expect(refused.answer.status == 422 && refused.json?.errorCode == "receipt_invalid")
            #expect(h.balance(Accounts.alice) == (0, 0, 0))
            #expect(h.log.contains("refunded before it was presented") && !h.log.contains("t.early"))
        }
    }

    /// A database that cannot be reached (PostgreSQL down) wrote nothing: provider_unavailable
    /// with a second to wait, as on /rpc, never internal.
    @Test func anUnreachableDatabaseIsProviderUnavailable() throws {
        struct Unreachable: WalletStore {
            func readWallet<T>(_ body: (any WalletReader) throws -> T) throws -> T { throw StorageError.unavailable(reason: "down") }
            func writeWallet<T>(_ body: (any WalletWriter) throws -> T) throws -> T { throw StorageError.unavailable(reason: "down") }
        }
        let wallet = WalletService(store: Unreachable(), packs: try CoinPackTable(), stores: CoinStores(), allowsDevGrants: true,
                                   clock: { Timestamp(seconds: 0) }, report: { _ in })
        for answer in [wallet.purchase(body: JSONValue.object(["packId": "starter"]).serialized(), account: Accounts.alice),
                       wallet.wallet(account: Accounts.alice)] {
            #expect(answer.status == 503 && answer.retryAfter == 1)
            #expect((try? JSONValue.parse(answer.body))?.errorCode == "provider_unavailable")
        }
    }

    @Test func aPlayPurchaseWithoutAnOrderIdIsKnownByItsTokensDigestNeverTheToken() throws {
        let promo = #"{"purchaseTimeMillis":"1773140000000","purchaseState":0,"purchaseType":1,"consumptionState":0,"acknowledgementState":0}"#
        let fake = FakeGoogle()
        fake.script("GET", "purchases/products/coins_small_01/tokens/t.promo", .json(200, promo))
        try fake.serve { base in
            let h = try WalletHarness(stores: CoinStores(googlePlay: try WalletHarness.playClient(fake, base)))
            let reply = h.purchase(Self.google("small", "t.promo"), account: Accounts.alice)
            let digest = Base64URL.encode(SHA256.hash(Array("t.promo".utf8)), padded: false)
            #expect(reply.answer.status == 200 && reply.json?["purchase"]?["externalRef"]?.stringValue == "token-sha256:" + digest)
            #expect(try h.store.readWallet { try $0.coinRows(account: Accounts.alice, limit: 10) }.allSatisfy { $0.externalRef?.contains("t.promo") == false })
            let reference = CoinStores.playTokenReference(tokenSHA256: digest)
            guard case .reversed = try h.wallet.reverse(channel: "google", externalRef: reference) else {
                Issue.record("not reversed")
                return
            }
            #expect(h.balance(Accounts.alice) == (0, 0, 2))
        }
    }

    @Test func aReversalBeyondTheBalanceIsDebtNotHidden() throws {
        let h = try WalletHarness()
        let now = Timestamp(seconds: 1_800_000_000)
        try h.store.writeWallet { w in
            try w.appendCoinRow(CoinRow(entryKey: "coin_purchase:apple:1", account: Accounts.alice, kind: .purchase, channel: "apple",
                                        externalRef: "1", packId: "starter", coins: 90, grossUsdCents: 99, netUsdCents: 69, createdAt: now))
            try w.appendCoinRow(CoinRow(entryKey: "coin_purchase:apple:2", account: Accounts.alice, kind: .purchase, channel: "apple",
                                        externalRef: "2", packId: "small", coins: 475, grossUsdCents: 499, netUsdCents: 349, createdAt: now))
        }
        // The second purchase reversed twice over (as if its coins were spent and then refunded):
        // the storage's unique key keeps the reversal single.
        _ = try h.wallet.reverse(channel: "apple", externalRef: "2")
        #expect(throws: StorageError.self) {
            try h.store.writeWallet { w in
                try w.appendCoinRow(CoinRow(entryKey: "coin_reversal:apple:2", account: Accounts.alice, kind: .reversal, channel: "apple",
                                            externalRef: "2", packId: "small", coins: -475, grossUsdCents: 499, netUsdCents: 349, createdAt: now))
            }
        }
        try h.store.writeWallet { w in
            try w.appendCoinRow(CoinRow(entryKey: "coin_reversal:apple:1", account: Accounts.alice, kind: .reversal, channel: "apple",
                                        externalRef: "1", packId: "starter", coins: -200, grossUsdCents: 99, netUsdCents: 69, createdAt: now))
        }
        #expect(h.balance(Accounts.alice) == (0, 110, 4))
        // A row the schema forbids: a reversal that adds coins.
        #expect(throws: StorageError.self) {
            try h.store.writeWallet { w in
                try w.appendCoinRow(CoinRow(entryKey: "coin_reversal:apple:3", account: Accounts.alice, kind: .reversal, channel: "apple",
                                            externalRef: "3", packId: "small", coins: 5, grossUsdCents: 0, netUsdCents: 0, createdAt: now))
            }
        }
    }
}
