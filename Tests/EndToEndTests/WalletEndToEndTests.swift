import BadgeCore
import Crypto
import Foundation
import Glibc
import JSON
import Locking
import RequestAuth
import TestSupport
import Testing

/// Issue 13 on the release binary over HTTP: the coin wallet with `[apple]` pointed at the fake
/// App Store Server API (Tests/Peers/fake_appstore.py) and `[google]` at the fake Google
/// (Sources/TestSupport/FakeGoogle.swift). Every pack on each store credited once, replayed to
/// its account, refused to another; the refusals the design page names; dev grants only when on;
/// and a kill -9 while the store's answer is in flight, then a retry: credited exactly once.
/// The services, fakes and requests run on threads of their own, never holding the test pool's.
@Suite(.serialized, .timeLimit(.minutes(8))) struct WalletEndToEndTests {
    static let packs: [(id: String, coins: Int, apple: String, play: String)] = [
        ("starter", 90, "COINS_STARTER_01", "coins_starter_01"), ("small", 475, "COINS_SMALL_01", "coins_small_01"),
        ("medium", 960, "COINS_MEDIUM_01", "coins_medium_01"), ("large", 1_930, "COINS_LARGE_01", "coins_large_01"),
        ("huge", 4_850, "COINS_HUGE_01", "coins_huge_01"), ("whale", 9_750, "COINS_WHALE_01", "coins_whale_01"),
    ]

    static func purchased(order: String, state: Int = 0) -> String {
        #"{"kind":"androidpublisher#productPurchase","purchaseTimeMillis":"1773140000000","purchaseState":\#(state),"consumptionState":0,"acknowledgementState":0,"orderId":"\#(order)"}"#
    }

    /// The release binary with both stores pointed at the fakes and `wallet` lines under `[wallet]`.
    static func service(apple fake: FakeAppStore, google base: String, in data: TemporaryDirectory, wallet: String = "",
                        googleExtra: String = "") throws -> ServiceProcess {
        let keyFile = data.file("play-service-account.json")
        try Data(PeerServiceAccount.shared.keyJSON.utf8).write(to: URL(fileURLWithPath: keyFile))
        chmod(keyFile, 0o600)
        let config = data.file("badge-service.ini")
        try Data("""
        [apple]
        bundle_id = \(fake.bundleId)
        root_certificates = \(fake.files.file("root.pem"))
        api_url = \(fake.productionURL)
        sandbox_api_url = \(fake.sandboxURL)
        timeout = 3
        issuer_id = \(fake.issuerId)
        key_id = \(fake.keyId)
        private_key = \(fake.files.file("key.p8"))

        [google]
        package_name = chat.simplex.app
        service_account = \(keyFile)
        api_url = \(base)
        token_url = \(base)/token
        timeout = 3
        \(googleExtra)

        [wallet]
        \(wallet)
        """.utf8).write(to: URL(fileURLWithPath: config))
        return try ServiceProcess(data: data, arguments: ["--config", config], executable: try AppStoreEndToEndTests.release)
    }

    /// A wallet request signed by `key` as `POST /rpc` is (RFC 9421), or unsigned without one.
    static func send(_ service: ServiceProcess, _ method: String, _ path: String, body: JSONValue? = nil,
                     key: Ed25519PrivateKey?) throws -> HTTPReply {
        let bytes = body?.serialized() ?? []
        var headers: [String: String] = body == nil ? [:] : ["Content-Type": "application/json"]
        if let key {
            let signed = try RequestSigner(key: key).sign(method: method, authority: "127.0.0.1:\(service.port)", path: path,
                                                          contentType: body == nil ? nil : "application/json", body: bytes,
                                                          created: Timestamp(seconds: Int64(Date().timeIntervalSince1970)))
            for f in signed.fields { headers[f.name] = f.value }
        }
        return try HTTP.request(method, service.url + path, body: body == nil ? nil : bytes, headers: headers)
    }

    static func buy(_ service: ServiceProcess, _ pack: String, payment: JSONValue?, key: Ed25519PrivateKey) throws -> HTTPReply {
        var body: JSONObject = ["packId": .string(pack)]
        if let payment { body["payment"] = payment }
        return try send(service, "POST", "/wallet/coins/purchase", body: .object(body), key: key)
    }

    static func apple(_ transactionId: String) -> JSONValue {
        ["type": "apple", "signedTransaction": .string(AppleCoinJWS.presented(transactionId))]
    }

    static func google(_ token: String) -> JSONValue { ["type": "google", "purchaseToken": .string(token)] }

    static func wallet(_ service: ServiceProcess, _ key: Ed25519PrivateKey) throws -> (balance: Int?, debt: Int?, rows: Int?) {
        let json = try send(service, "GET", "/wallet", key: key).json
        return (json?["balance"]?.numberValue?.exactInt, json?["debt"]?.numberValue?.exactInt, json?["rows"]?.arrayValue?.count)
    }

    @Test func eachPackOnEachStoreIsCreditedOnceReplayedToItsAccountAndRefusedToAnother() async throws {
        let fake = try await onOwnThread { try FakeAppStore() }
        let google = FakeGoogle()
        for (n, pack) in Self.packs.enumerated() {
            try fake.scriptTransaction("20000009100000\(n)", transaction: ["productId": .string(pack.apple)])
            google.script("GET", "purchases/products/\(pack.play)/tokens/tok.\(pack.id)", .json(200, Self.purchased(order: "GPA.3399-\(n)")))
        }
        try await onOwnThread {
            try google.serve { base in
                let data = TemporaryDirectory("e2e-wallet")
                let service = try Self.service(apple: fake, google: base, in: data)
                defer { _ = service.stop() }
                let alice = Ed25519PrivateKey(), bob = Ed25519PrivateKey()
                let packages = try Self.send(service, "GET", "/wallet/coin-packages", key: nil)
                #expect(packages.status == 200 && packages.json?["packs"]?.arrayValue?.count == 6)
                #expect(packages.json?["storeFeePercent"]?.numberValue?.exactInt == 30)
                for (n, pack) in Self.packs.enumerated() {
                    for payment in [Self.apple("20000009100000\(n)"), Self.google("tok.\(pack.id)")] {
                        let first = try Self.buy(service, pack.id, payment: payment, key: alice)
                        #expect(first.status == 200 && first.json?["purchase"]?["coins"]?.numberValue?.exactInt == pack.coins,
                                "\(pack.id): \(first.text)")
                        let again = try Self.buy(service, pack.id, payment: payment, key: alice)
                        #expect(again.status == 200 && again.body == first.body, "\(pack.id): \(again.text)")
                        let other = try Self.buy(service, pack.id, payment: payment, key: bob)
                        #expect(other.status == 409 && other.json?["error"]?["code"]?.stringValue == "receipt_used", "\(pack.id): \(other.text)")
                    }
                }
                let total = Self.packs.map(\.coins).reduce(0, +) * 2
                #expect(try Self.wallet(service, alice) == (total, 0, 12))
                #expect(try Self.wallet(service, bob) == (0, 0, 0))
                // A small pack's purchase presented as a big pack: refused on each store, nothing credited.
                let appleBig = try Self.buy(service, "whale", payment: Self.apple("200000091000000"), key: alice)
                #expect(appleBig.status == 422 && appleBig.json?["error"]?["code"]?.stringValue == "pack_mismatch", "\(appleBig.text)")
                let googleBig = try Self.buy(service, "whale", payment: Self.google("tok.starter"), key: alice)
                #expect(googleBig.status != 200, "\(googleBig.text)")
                #expect(google.apiCalls.last?.route == "purchases/products/coins_whale_01/tokens/tok.starter")
                #expect(try Self.wallet(service, alice).balance == total)
                // Unsigned or forged: 401 before anything is asked.
                #expect(try Self.send(service, "GET", "/wallet", key: nil).status == 401)
                #expect(try Self.send(service, "POST", "/wallet/coins/purchase", body: ["packId": "starter"], key: nil).status == 401)
                // The operator's lines never name a token or a signed transaction.
                let accessLog = service.accessLog
                for pack in Self.packs {
                    #expect(!service.stderr.contains("tok.\(pack.id)") && !accessLog.contains("tok.\(pack.id)"))
                }
                #expect(!service.stderr.contains(AppleCoinJWS.presented("200000091000000")))
                #expect(accessLog.contains("wallet_purchase"))
            }
        }
    }

    /// A coin purchase refunded in the App Store, and one voided in Play, lose their coins at once
    /// through the store notifications (the wallet listens after the badge ledger); a redelivery
    /// and a second notice of the same purchase change nothing; a purchase of another account is untouched.
    @Test func refundedAndVoidedCoinPurchasesAreReversedAtOnceByTheStoresNotifications() async throws {
        let fake = try await onOwnThread { try FakeAppStore() }
        let google = FakeGoogle()
        let (pem, jwks) = try PushAuthenticationKeys.make(kid: "w-1")
        let now = Int64(Date().timeIntervalSince1970)
        let push = try PushAuthenticationKeys.token(pem, kid: "w-1", audience: GooglePlayNotificationEndToEndTests.audience,
                                                    email: GooglePlayNotificationEndToEndTests.email, now: now)
        google.script("GET", GooglePlayNotificationEndToEndTests.certs, .json(200, jwks, headers: ["Cache-Control": "public, max-age=3600"]))
        try fake.scriptTransaction("2000000930000001", transaction: ["productId": "COINS_MEDIUM_01"])
        try fake.scriptTransaction("2000000930000002", transaction: ["productId": "COINS_SMALL_01"])
        google.script("GET", "purchases/products/coins_large_01/tokens/tok.voided", .json(200, Self.purchased(order: "GPA.3399-930")))
        let nowMs = Int(now) * 1000
        let refunded = AppStoreNotificationEndToEndTests.transaction(fake, id: "2000000930000001", original: "2000000930000001",
                                                                    product: "COINS_MEDIUM_01", type: "Consumable", nowMs: nowMs,
                                                                    revokedMs: nowMs - 1000)
        let refund = try AppStoreNotificationEndToEndTests.notification("REFUND", uuid: "7e3c0f52-0000-4000-8000-000000000930",
                                                                        signedTransaction: try fake.sign(.object(refunded)),
                                                                        bundle: fake.bundleId, nowMs: nowMs, sign: { try fake.sign($0) })
        let voided = GooglePlayNotificationEndToEndTests.push(
            GooglePlayNotificationEndToEndTests.notification("voidedPurchaseNotification",
                                                            ["purchaseToken": "tok.voided", "orderId": "GPA.3399-930", "productType": 2,
                                                             "refundType": 1]), messageId: "m-wallet-void")
        let failures = try await onOwnThread { () -> [String] in
            var failures: [String] = []
            func check(_ condition: Bool, _ what: @autoclosure () -> String) { if !condition { failures.append(what()) } }
            try google.serve { base in
                let data = TemporaryDirectory("e2e-wallet-refunds")
                let service = try Self.service(apple: fake, google: base, in: data, googleExtra: """
                    push_audience = \(GooglePlayNotificationEndToEndTests.audience)
                    push_service_account = \(GooglePlayNotificationEndToEndTests.email)
                    push_jwks_url = \(base)\(GooglePlayNotificationEndToEndTests.certs)
                    """)
                defer { _ = service.stop() }
                let alice = Ed25519PrivateKey(), bob = Ed25519PrivateKey()
                func expectWallet(_ key: Ed25519PrivateKey, _ expected: (Int?, Int?, Int?), _ when: String) throws {
                    let held = try Self.wallet(service, key)
                    check(held == expected, "\(when): balance, debt, rows \(held)")
                }
                for (pack, payment, key) in [("medium", Self.apple("2000000930000001"), alice), ("large", Self.google("tok.voided"), alice),
                                             ("small", Self.apple("2000000930000002"), bob)] {
                    let bought = try Self.buy(service, pack, payment: payment, key: key)
                    check(bought.status == 200, "\(pack): \(bought.text)")
                }
                try expectWallet(alice, (960 + 1_930, 0, 2), "alice before")

                func deliver(_ body: [UInt8], _ path: String, bearer: String?) throws -> (Int, String) {
                    var headers = ["Content-Type": "application/json"]
                    if let bearer { headers["Authorization"] = "Bearer " + bearer }
                    let reply = try HTTP.request("POST", service.url + path, body: body, headers: headers)
                    return (reply.status, reply.json?["status"]?.stringValue ?? reply.text)
                }
                let appleFirst = try deliver(refund, "/webhooks/apple", bearer: nil)
                check(appleFirst == (200, "applied"), "apple REFUND: \(appleFirst)")
                try expectWallet(alice, (1_930, 0, 3), "alice after the refund")
                let appleAgain = try deliver(refund, "/webhooks/apple", bearer: nil)
                check(appleAgain == (200, "duplicate"), "apple redelivery: \(appleAgain)")

                let playFirst = try deliver(voided, "/webhooks/google", bearer: push)
                check(playFirst == (200, "applied"), "play voided: \(playFirst)")
                try expectWallet(alice, (0, 0, 4), "alice after the void")
                // The same void under another message id: recorded, nothing reversed twice.
                let playSecond = try deliver(GooglePlayNotificationEndToEndTests.push(
                    GooglePlayNotificationEndToEndTests.notification("voidedPurchaseNotification",
                                                                    ["purchaseToken": "tok.voided", "orderId": "GPA.3399-930",
                                                                     "productType": 2, "refundType": 1]), messageId: "m-wallet-void-2"),
                                             "/webhooks/google", bearer: push)
                check(playSecond == (200, "ignored"), "play second notice: \(playSecond)")
                try expectWallet(alice, (0, 0, 4), "alice after the second notice")
                try expectWallet(bob, (475, 0, 1), "bob")
                check(!service.stderr.contains("tok.voided"), "the token was logged")
            }
            return failures
        }
        for failure in failures { Issue.record(Comment(rawValue: failure)) }
    }

    @Test func pendingCanceledRevokedAndSandboxOnlyPurchasesBehaveAsThePageSays() async throws {
        let fake = try await onOwnThread { try FakeAppStore() }
        let google = FakeGoogle()
        google.script("GET", "purchases/products/coins_small_01/tokens/t.pending", .json(200, Self.purchased(order: "GPA.p", state: 2)))
        google.script("GET", "purchases/products/coins_small_01/tokens/t.canceled", .json(200, Self.purchased(order: "GPA.c", state: 1)))
        let nowMs = Int(Date().timeIntervalSince1970) * 1000
        try fake.scriptTransaction("2000000920000001", transaction: ["productId": "COINS_SMALL_01", "revocationDate": .number(JSONNumber(nowMs)),
                                                                      "revocationReason": 0])
        // Sandbox only: production answers 404 (it does not hold the id), or 401 (never released there).
        try fake.scriptTransaction("2000000920000002", environment: "sandbox", transaction: ["productId": "COINS_SMALL_01"])
        try fake.scriptTransaction("2000000920000003", environment: "production", mode: "401")
        try fake.scriptTransaction("2000000920000003", environment: "sandbox", transaction: ["productId": "COINS_SMALL_01"])
        try await onOwnThread {
            try google.serve { base in
                let data = TemporaryDirectory("e2e-wallet-classes")
                let service = try Self.service(apple: fake, google: base, in: data)
                defer { _ = service.stop() }
                let key = Ed25519PrivateKey()
                let pending = try Self.buy(service, "small", payment: Self.google("t.pending"), key: key)
                #expect(pending.status == 409 && pending.json?["error"]?["code"]?.stringValue == "payment_pending")
                #expect(pending.headers["retry-after"] == "3600")
                let canceled = try Self.buy(service, "small", payment: Self.google("t.canceled"), key: key)
                #expect(canceled.status == 422 && canceled.json?["error"]?["code"]?.stringValue == "receipt_invalid")
                let revoked = try Self.buy(service, "small", payment: Self.apple("2000000920000001"), key: key)
                #expect(revoked.status == 422 && revoked.json?["error"]?["code"]?.stringValue == "receipt_invalid")
                #expect(try Self.wallet(service, key) == (0, 0, 0))
                for id in ["2000000920000002", "2000000920000003"] {
                    let sandbox = try Self.buy(service, "small", payment: Self.apple(id), key: key)
                    #expect(sandbox.status == 200, "\(id): \(sandbox.text)")
                    let asked = try fake.requests().filter { $0["originalTransactionId"]?.stringValue == id }.compactMap { $0["environment"]?.stringValue }
                    #expect(asked == ["production", "sandbox"], "\(id)")
                }
                #expect(try Self.wallet(service, key) == (950, 0, 2))
                #expect(service.stderr.contains("purchaseState pending"))

                // A Sandbox refund reaches the wallet, which credited the Sandbox purchase, though
                // test purchases are not credited for badges here; one of nothing credited is ignored
                // (the badge ledger records no refund of a purchase it never sells in Sandbox).
                func sandboxRefund(_ id: String, _ uuid: String) throws -> (Int, String?) {
                    let t = AppStoreNotificationEndToEndTests.transaction(fake, id: id, original: id, product: "COINS_SMALL_01",
                                                                          type: "Consumable", nowMs: nowMs, revokedMs: nowMs,
                                                                          environment: "Sandbox")
                    let body = try AppStoreNotificationEndToEndTests.notification(
                        "REFUND", uuid: uuid, signedTransaction: try fake.sign(.object(t)), bundle: fake.bundleId, nowMs: nowMs,
                        environment: "Sandbox", sign: { try fake.sign($0) })
                    let reply = try AppStoreNotificationEndToEndTests.post(service, body)
                    return (reply.status, reply.json?["status"]?.stringValue)
                }
                let refunded = try sandboxRefund("2000000920000002", "7e3c0f52-0000-4000-8000-000000000921")
                #expect(refunded == (200, "applied"))
                #expect(try Self.wallet(service, key) == (475, 0, 3))
                let unknown = try sandboxRefund("2000000920000009", "7e3c0f52-0000-4000-8000-000000000922")
                #expect(unknown == (200, "ignored"))
            }
        }
    }

    /// The account UUID an app sets when it buys (README, Coin wallet, Account binding), computed
    /// here from the recipe, apart from the service's code: SHA-256 of the domain and the raw
    /// key, its first 16 bytes marked version 8 and the RFC variant.
    static func accountUUID(_ key: Ed25519PrivateKey) -> String {
        var b = Array(SHA256.hash(Array("simplex-coin-wallet-account-v1:".utf8) + key.publicKey.raw).prefix(16))
        b[6] = b[6] & 0x0f | 0x80
        b[8] = b[8] & 0x3f | 0x80
        let hex = b.map { String(format: "%02x", $0) }.joined()
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { r in
            String(hex[hex.index(hex.startIndex, offsetBy: r.lowerBound)..<hex.index(hex.startIndex, offsetBy: r.upperBound)])
        }.joined(separator: "-")
    }

    /// Issue 35, item 6 on the release binary: the buyer's replay on each store is answered from
    /// its row with the store down (zero store calls); with `[wallet] sandbox = off` a Sandbox
    /// purchase is test_purchase; a purchase whose account token names another key is
    /// receipt_used on each store, and the named key is credited.
    @Test func aReplayIsAnsweredWithTheStoresDownSandboxOffIsRefusedAndAnotherAccountsPurchaseIsRefused() async throws {
        let fake = try await onOwnThread { try FakeAppStore() }
        let google = FakeGoogle()
        let alice = Ed25519PrivateKey(), bob = Ed25519PrivateKey()
        try fake.scriptTransaction("2000000940000001", transaction: ["productId": "COINS_MEDIUM_01"])
        try fake.scriptTransaction("2000000940000002", environment: "sandbox", transaction: ["productId": "COINS_MEDIUM_01"])
        try fake.scriptTransaction("2000000940000003", transaction: ["productId": "COINS_MEDIUM_01",
                                                                     "appAccountToken": .string(Self.accountUUID(alice))])
        google.script("GET", "purchases/products/coins_medium_01/tokens/tok.replay", .json(200, Self.purchased(order: "GPA.3399-940")))
        let bound = Self.purchased(order: "GPA.3399-941").replacingOccurrences(
            of: #""orderId""#, with: #""obfuscatedExternalAccountId":"\#(Self.accountUUID(alice))","orderId""#)
        google.script("GET", "purchases/products/coins_medium_01/tokens/tok.bound", .json(200, bound))
        let failures = try await onOwnThread { () -> [String] in
            var failures: [String] = []
            func check(_ condition: Bool, _ what: @autoclosure () -> String) { if !condition { failures.append(what()) } }
            try google.serve { base in
                let service = try Self.service(apple: fake, google: base, in: TemporaryDirectory("e2e-wallet-replay"), wallet: "sandbox = off")
                defer { _ = service.stop() }
                func code(_ reply: HTTPReply) -> String? { reply.json?["error"]?["code"]?.stringValue }
                func appleAsked(_ id: String) throws -> Int { try fake.requests().filter { $0["originalTransactionId"]?.stringValue == id }.count }

                // Each store's purchase credited, then both stores down: the owner's replay is its row.
                let apple = try Self.buy(service, "medium", payment: Self.apple("2000000940000001"), key: alice)
                let play = try Self.buy(service, "medium", payment: Self.google("tok.replay"), key: alice)
                check(apple.status == 200 && play.status == 200, "first credits: \(apple.text) \(play.text)")
                try fake.scriptTransaction("2000000940000001", mode: "503")
                google.script("GET", "purchases/products/coins_medium_01/tokens/tok.replay", .googleError(503, "backendError"))
                let (appleCalls, playCalls) = (try appleAsked("2000000940000001"), google.apiCalls.count)
                let appleAgain = try Self.buy(service, "medium", payment: Self.apple("2000000940000001"), key: alice)
                let playAgain = try Self.buy(service, "medium", payment: Self.google("tok.replay"), key: alice)
                check(appleAgain.status == 200 && appleAgain.body == apple.body, "apple replay while down: \(appleAgain.text)")
                check(playAgain.status == 200 && playAgain.body == play.body, "play replay while down: \(playAgain.text)")
                check(try appleAsked("2000000940000001") == appleCalls, "Apple asked on a replay")
                check(google.apiCalls.count == playCalls, "Play asked on a replay")
                // Another key presenting them meets the store: down.
                let appleOther = try Self.buy(service, "medium", payment: Self.apple("2000000940000001"), key: bob)
                check(appleOther.status == 503 && code(appleOther) == "provider_unavailable", "apple other key: \(appleOther.text)")

                // [wallet] sandbox = off: a Sandbox purchase is a test purchase, not credited.
                let sandbox = try Self.buy(service, "medium", payment: Self.apple("2000000940000002"), key: alice)
                check(sandbox.status == 422 && code(sandbox) == "test_purchase", "sandbox off: \(sandbox.text)")

                // Bound to alice: bob, who learnt the transaction id or the token, is refused; alice is credited.
                for payment in [Self.apple("2000000940000003"), Self.google("tok.bound")] {
                    let stolen = try Self.buy(service, "medium", payment: payment, key: bob)
                    check(stolen.status == 409 && code(stolen) == "receipt_used", "bound, other key: \(stolen.text)")
                    let own = try Self.buy(service, "medium", payment: payment, key: alice)
                    check(own.status == 200, "bound, own key: \(own.text)")
                }
                let held = try Self.wallet(service, alice)
                check(held == (960 * 4, 0, 4), "alice \(held)")
                let bobs = try Self.wallet(service, bob)
                check(bobs == (0, 0, 0), "bob \(bobs)")
                check(!service.stderr.contains("tok.bound") && !service.stderr.contains("tok.replay"), "a token was logged")
            }
            return failures
        }
        for failure in failures { Issue.record(Comment(rawValue: failure)) }
    }

    @Test func devGrantsAreRefusedByDefaultAndWorkOnlyWhenSwitchedOn() async throws {
        let fake = try await onOwnThread { try FakeAppStore() }
        try await onOwnThread {
            try FakeGoogle().serve { base in
                let key = Ed25519PrivateKey()
                let off = try Self.service(apple: fake, google: base, in: TemporaryDirectory("e2e-wallet-dev-off"))
                let refused = try Self.buy(off, "medium", payment: nil, key: key)
                #expect(refused.status == 403 && refused.json?["error"]?["code"]?.stringValue == "dev_grants_disabled")
                #expect(try Self.wallet(off, key) == (0, 0, 0))
                #expect(!off.stderr.contains("allow_dev_coin_grants"))
                _ = off.stop()

                let on = try Self.service(apple: fake, google: base, in: TemporaryDirectory("e2e-wallet-dev-on"),
                                          wallet: "allow_dev_coin_grants = on")
                defer { _ = on.stop() }
                #expect(on.stderr.contains("[wallet] allow_dev_coin_grants is on"))
                let granted = try Self.buy(on, "medium", payment: nil, key: key)
                #expect(granted.status == 200 && granted.json?["purchase"]?["kind"]?.stringValue == "dev_grant", "\(granted.text)")
                #expect(try Self.wallet(on, key) == (960, 0, 1))
            }
        }
    }

    /// The wallet's account is whoever `/rpc` would take the request from: a trusted front's
    /// forwarded key counts, and wrong front tokens are limited per address as on `/rpc`.
    @Test func aTrustedFrontsKeyIsAnAccountAndWrongFrontTokensAreLimited() async throws {
        let token = String(repeating: "F", count: 40)
        try await onOwnThread {
            let service = try ServiceProcess(data: TemporaryDirectory("e2e-wallet-front"),
                                             environment: ["BADGE_SERVICE_RPC_FRONT_TOKEN": token,
                                                           "BADGE_SERVICE_WALLET_ALLOW_DEV_COIN_GRANTS": "on"],
                                             executable: try AppStoreEndToEndTests.release)
            defer { _ = service.stop() }
            let key = Ed25519PrivateKey().publicKey.purchaseKeyText
            func front(_ bearer: String, _ method: String, _ path: String, _ body: JSONValue? = nil) throws -> HTTPReply {
                var headers = ["Authorization": "Bearer " + bearer, "Badge-Signer-Key": key]
                if body != nil { headers["Content-Type"] = "application/json" }
                return try HTTP.request(method, service.url + path, body: body?.serialized(), headers: headers)
            }
            let granted = try front(token, "POST", "/wallet/coins/purchase", ["packId": "starter"])
            #expect(granted.status == 200, "\(granted.text)")
            #expect(try front(token, "GET", "/wallet").json?["balance"]?.numberValue?.exactInt == 90)
            for _ in 0..<10 { #expect(try front("wrong-" + token, "GET", "/wallet").status == 401) }
            let limited = try front("wrong-" + token, "GET", "/wallet")
            #expect(limited.status == 429 && limited.json?["error"]?["code"]?.stringValue == "rate_limited", "\(limited.text)")
            #expect(limited.headers["retry-after"] != nil)
        }
    }

    /// The store's answer delayed, the service killed with SIGKILL around the moment it arrives
    /// (before, while and just after it is credited), restarted on the same data, and the purchase
    /// presented again with the store saying the same: each purchase is credited exactly once.
    @Test func aKillBetweenTheStoresAnswerAndTheCreditThenARetryCreditsExactlyOnce() async throws {
        let fake = try await onOwnThread { try FakeAppStore() }
        let offsets = [0.6, 0.95, 1.0, 1.05, 1.1, 1.3]
        try await onOwnThread {
            try FakeGoogle().serve { base in
                let data = TemporaryDirectory("e2e-wallet-kill")
                let key = Ed25519PrivateKey()
                var service = try Self.service(apple: fake, google: base, in: data)
                for (n, offset) in offsets.enumerated() {
                    let id = "20000009300000\(n)"
                    try fake.scriptTransaction(id, mode: "slow", transaction: ["productId": "COINS_LARGE_01"], delaySeconds: 1)
                    let running = service
                    let sent = DispatchSemaphore(value: 0)
                    DispatchQueue.global().async {
                        _ = try? Self.buy(running, "large", payment: Self.apple(id), key: key)
                        sent.signal()
                    }
                    // The kill lands `offset` seconds after the fake received the call (its answer takes 1 s).
                    let asked = Date().addingTimeInterval(10)
                    while try fake.requests().filter({ $0["originalTransactionId"]?.stringValue == id }).isEmpty, Date() < asked {
                        usleep(5_000)
                    }
                    usleep(useconds_t(offset * 1_000_000))
                    #expect(service.stop(SIGKILL) != nil)
                    sent.wait()
                    service = try Self.service(apple: fake, google: base, in: data)
                    try fake.scriptTransaction(id, transaction: ["productId": "COINS_LARGE_01"])
                    let retry = try Self.buy(service, "large", payment: Self.apple(id), key: key)
                    #expect(retry.status == 200 && retry.json?["purchase"]?["externalRef"]?.stringValue == id, "\(offset): \(retry.text)")
                    #expect(try Self.wallet(service, key) == (1_930 * (n + 1), 0, n + 1), "after the kill at +\(offset) s")
                }
                _ = service.stop()
            }
        }
    }
}

/// What a device presents for an App Store coin purchase: a JWS whose payload names the
/// transaction. The service reads it unverified for the id only, and asks Apple for the record.
enum AppleCoinJWS {
    static func presented(_ transactionId: String) -> String {
        let payload = JSONValue.object(["transactionId": .string(transactionId), "type": "Consumable"]).serialized()
        return Base64URL.encode(Array(#"{"alg":"ES256"}"#.utf8), padded: false) + "." + Base64URL.encode(payload, padded: false) + ".c2ln"
    }
}
