import AppStore
import BadgeCore
import Crypto
import Foundation
import Handlers
import JSON
import Ledger
import Schema
import Storage
import TestSupport
import Testing

/// The App Store paths into the subscription rules over the RPC layer: transactions signed by a
/// test PKI (Tests/Peers/appstore_peer.py) and verified offline, the subscription's status from
/// the scripted store.
@Suite struct AppStoreSubscriptionTests {
    static let bundle = "chat.simplex.badges.test"
    let s: SubscriptionHarness
    let pki = TemporaryDirectory("appstore-pki")
    let service: BadgeService

    init() async throws {
        s = try SubscriptionHarness(at: at(2026, 3, 10))
        // The peer runs on a thread of its own, never holding one of the test pool's few threads.
        let path = pki.path
        _ = try await onOwnThread { try PeerPython.run(script: "appstore_peer.py", arguments: ["pki", path]) }
        let root = try Data(contentsOf: URL(fileURLWithPath: pki.file("root.der")))
        let roots = try #require(AppleRootCertificates(der: [Array(root)]))
        service = BadgeService(store: s.h.store, issuer: s.h.issuer, clock: s.h.clock.function,
                               appStore: AppStoreFunding(verifier: AppStoreVerifier(roots: roots, bundleId: Self.bundle)),
                               subscriptionStores: [s.apple], configuration: .init(catalogCacheSeconds: 0))
    }

    /// A StoreKit 2 transaction of `product`, signed now.
    func jws(_ transactionId: String, original: String, product: String,
             type: String = "Auto-Renewable Subscription") async throws -> String {
        let ms = Int(s.now.seconds) * 1000
        var payload: [String: JSONValue] = [
            "transactionId": .string(transactionId), "originalTransactionId": .string(original), "bundleId": .string(Self.bundle),
            "productId": .string(product), "purchaseDate": .number(JSONNumber(ms - 60_000)), "quantity": 1,
            "type": .string(type), "inAppOwnershipType": "PURCHASED", "signedDate": .number(JSONNumber(ms)),
            "environment": "Production",
        ]
        if type == "Auto-Renewable Subscription" {
            payload["expiresDate"] = .number(JSONNumber(ms + 30 * 86_400_000))
            payload["subscriptionGroupIdentifier"] = "21000001"
        }
        var object = JSONObject()
        for (k, v) in payload.sorted(by: { $0.key < $1.key }) { _ = object.appendNew(k, v) }
        let (path, input) = (pki.path, Data(JSONValue.object(object).serialized()))
        let out = try await onOwnThread { try PeerPython.run(script: "appstore_peer.py", arguments: ["sign", path], input: input) }
        return String(decoding: out, as: UTF8.self)
    }

    func send(_ command: RPCCommand, by key: Ed25519PrivateKey) -> RPCOutcome {
        let request = RPCRequest(purchaseKey: key.publicKey.purchaseKeyText, command: command)
        return service.handle(body: request.json.serialized(), caller: .signer(key.publicKey))
    }

    func buy(_ jws: String, by key: Ed25519PrivateKey) -> RPCOutcome {
        send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .apple(jws: jws), upgrade: nil), by: key)
    }

    /// A repeat by the key a subscription was credited to is answered from the record before the
    /// transaction is priced: a product retired since does not change the answer (Idempotency).
    @Test func aRepeatIsAnsweredFromTheRecordAfterItsProductIsRetired() async throws {
        s.apple.answer("5700", .success(.charged(monthlyCharge("5701", start: at(2026, 3, 10)))))
        let key = Ed25519PrivateKey()
        let signed = try await jws("5701", original: "5700", product: "SUBSCR_BADGE_SUPPORTER_MONTH_01")
        let first = buy(signed, by: key)
        #expect(first.credential != nil, "\(first.response)")
        try StoreProductAdmin(store: s.h.store).remove(store: "apple", productId: "SUBSCR_BADGE_SUPPORTER_MONTH_01", basePlanId: nil)
        #expect(buy(signed, by: key).response == first.response)
        // Another key is not answered from the record: the transaction is verified and priced first.
        #expect(buy(signed, by: Ed25519PrivateKey()).error == .productUnavailable)
    }

    @Test func aVerifiedSubscriptionIsClaimedByItsOriginalTransactionId() async throws {
        let annual = monthlyCharge("5001", start: at(2026, 3, 10), months: 12)
        s.apple.answer("5000", .success(.charged(annual)))
        let key = Ed25519PrivateKey()
        let out = buy(try await jws("5001", original: "5000", product: "SUBSCR_BADGE_SUPPORTER_YEAR_01"), by: key)
        #expect(out.statement?.entries.map(\.entryType) == [.credit(.charge(chargeId: "5001")), .debit(.badge)])
        #expect(out.response.subscriptionState == .renewing)
        #expect(s.apple.reads == ["5000"])
        // A later renewal's transaction of the same subscription, from another key: receipt_used.
        let other = buy(try await jws("5002", original: "5000", product: "SUBSCR_BADGE_SUPPORTER_YEAR_01"), by: Ed25519PrivateKey())
        #expect(other.error == .receiptUsed)
    }

    @Test func upgradeBadgeSubscriptionGrantsTheHigherTierOnceTheStoreChargesIt() async throws {
        let annual = monthlyCharge("5101", start: at(2026, 3, 10), months: 12)
        s.apple.answer("5100", .success(.charged(annual)))
        let key = Ed25519PrivateKey()
        let bought = buy(try await jws("5101", original: "5100", product: "SUBSCR_BADGE_SUPPORTER_YEAR_01"), by: key)
        let last = try #require(bought.statement?.entries.last)

        s.now = at(2026, 3, 20)
        let legend = try await jws("5102", original: "5100", product: "SUBSCR_BADGE_LEGEND_MONTH_01")
        // Not charged yet: payment_pending to the next allowed check, never the old tier's credential.
        var out = send(.upgradeBadgeSubscription(payment: .apple(jws: legend), balance: Balance(lastEntry: last)), by: key)
        #expect(out.error == .paymentPending && out.response.retryAfter == 3600)
        s.now = s.now.adding(seconds: 600)
        s.apple.answer("5100", .success(.charged(monthlyCharge("5102", start: at(2026, 3, 20), type: .legend))))
        out = send(.upgradeBadgeSubscription(payment: .apple(jws: legend), balance: Balance(lastEntry: last)), by: key)
        #expect(out.error == .paymentPending && out.response.retryAfter == 3000)
        #expect(s.apple.reads.count == 2)

        s.now = s.now.adding(seconds: 3000)
        out = send(.upgradeBadgeSubscription(payment: .apple(jws: legend), balance: Balance(lastEntry: last)), by: key)
        let entries = try #require(out.statement?.entries)
        #expect(entries.map(\.entryType) == [.debit(.upgrade(toPurchaseKey: key.publicKey.purchaseKeyText)),
                                             .credit(.charge(chargeId: "5102")), .debit(.badge)])
        #expect(entries.map(\.changeMonths) == [-11, 1, -1])
        #expect(out.credential?.badgeType == .legend && out.response.subscriptionState == .renewing)
        _ = try s.checkedLedger(of: key)

        // The same transaction again: the tier is held, answered from the record, nothing asked or written.
        let rows = try s.checkedLedger(of: key)
        let again = send(.upgradeBadgeSubscription(payment: .apple(jws: legend), balance: Balance(lastEntry: try #require(entries.last))), by: key)
        #expect(again.credential == out.credential && again.statement?.entries == [])
        #expect(try s.checkedLedger(of: key) == rows)
        #expect(s.apple.reads.count == 3)
    }

    @Test func upgradeBadgeSubscriptionRefusesWhatCannotBeAnUpgradeBeforeAskingTheStore() async throws {
        s.apple.answer("5200", .success(.charged(monthlyCharge("5201", start: at(2026, 3, 10)))))
        let key = Ed25519PrivateKey()
        let last = try #require(buy(try await jws("5201", original: "5200", product: "SUBSCR_BADGE_SUPPORTER_MONTH_01"), by: key)
            .statement?.entries.last)
        let balance = Balance(lastEntry: last)
        let otherSubscription = try await jws("5301", original: "5300", product: "SUBSCR_BADGE_LEGEND_MONTH_01")
        let oneTime = try await jws("5401", original: "5401", product: "BADGE_LEGEND_01", type: "Consumable")
        #expect(send(.upgradeBadgeSubscription(payment: .apple(jws: otherSubscription), balance: balance), by: key).error == .badRequest)
        #expect(send(.upgradeBadgeSubscription(payment: .apple(jws: oneTime), balance: balance), by: key).error == .badRequest)
        #expect(send(.upgradeBadgeSubscription(payment: .google(productId: "subscr_badge_legend_01", token: "t"), balance: balance),
                     by: key).error == .badRequest)
        #expect(send(.upgradeBadgeSubscription(payment: .apple(jws: "a.b.c"), balance: balance), by: key).error == .receiptInvalid)
        // A purchase no App Store subscription funds.
        let coded = Ed25519PrivateKey()
        let codeLast = try #require(s.h.redeem(try s.h.code(), by: coded).statement?.entries.last)
        let legend = try await jws("5202", original: "5200", product: "SUBSCR_BADGE_LEGEND_MONTH_01")
        #expect(send(.upgradeBadgeSubscription(payment: .apple(jws: legend), balance: Balance(lastEntry: codeLast)), by: coded).error
                == .badRequest)
        #expect(s.apple.reads == ["5200"])
    }

    @Test func transferBadgeMovesAnAppStoreSubscriptionPresentedByItsLatestTransaction() async throws {
        s.apple.answer("5500", .success(.charged(monthlyCharge("5501", start: at(2026, 3, 10)))))
        let old = Ed25519PrivateKey()
        _ = buy(try await jws("5501", original: "5500", product: "SUBSCR_BADGE_SUPPORTER_MONTH_01"), by: old)
        let new = Ed25519PrivateKey()
        let moved = send(.transferBadge(masterKey: SecureRandom.bytes(32),
                                        payment: .apple(jws: try await jws("5501", original: "5500", product: "SUBSCR_BADGE_SUPPORTER_MONTH_01"))),
                         by: new)
        #expect(moved.statement?.entries.map(\.entryType) == [.credit(.charge(chargeId: "5501")), .debit(.badge)])
        #expect(try s.checkedLedger(of: old).last?.entryType == .debit(.transferOut(toPurchaseKey: new.publicKey.purchaseKeyText)))
        // A one-time purchase is not moved: one no key holds (its purchaseBadge answer was lost) is
        // credited as by purchaseBadge; one another key holds is receipt_used.
        let restoring = Ed25519PrivateKey()
        let oneTimeJWS = try await jws("5601", original: "5601", product: "BADGE_SUPPORTER_01", type: "Consumable")
        let oneTime = send(.transferBadge(masterKey: SecureRandom.bytes(32), payment: .apple(jws: oneTimeJWS)), by: restoring)
        #expect(oneTime.credential != nil && oneTime.statement?.entries.first?.changeMonths == 1, "\(oneTime)")
        #expect(send(.transferBadge(masterKey: SecureRandom.bytes(32), payment: .apple(jws: oneTimeJWS)),
                     by: Ed25519PrivateKey()).error == .receiptUsed)
        // Only once verified: a one-time transaction whose signature does not hold is receipt_invalid.
        let genuine = try await jws("5602", original: "5602", product: "BADGE_SUPPORTER_01", type: "Consumable")
        var parts = genuine.split(separator: ".").map(String.init)
        var signature = Array(parts[2])
        let i = signature.count / 2
        signature[i] = signature[i] == "A" ? "B" : "A"
        parts[2] = String(signature)
        let forged = send(.transferBadge(masterKey: SecureRandom.bytes(32), payment: .apple(jws: parts.joined(separator: "."))),
                          by: Ed25519PrivateKey())
        #expect(forged.error == .receiptInvalid)
    }

    /// transferBadge's repeat by the key the subscription moved to is answered from the record before
    /// the transaction is priced: a product retired since changes nothing, and the store is not asked.
    @Test func aTransfersRepeatIsAnsweredFromTheRecordAfterItsProductIsRetired() async throws {
        s.apple.answer("5800", .success(.charged(monthlyCharge("5801", start: at(2026, 3, 10)))))
        let signed = try await jws("5801", original: "5800", product: "SUBSCR_BADGE_SUPPORTER_MONTH_01")
        #expect(buy(signed, by: Ed25519PrivateKey()).credential != nil)
        let new = Ed25519PrivateKey(), master = SecureRandom.bytes(32)
        let moved = send(.transferBadge(masterKey: master, payment: .apple(jws: signed)), by: new)
        #expect(moved.credential != nil, "\(moved.response)")
        let reads = s.apple.reads.count
        try StoreProductAdmin(store: s.h.store).remove(store: "apple", productId: "SUBSCR_BADGE_SUPPORTER_MONTH_01", basePlanId: nil)
        #expect(send(.transferBadge(masterKey: master, payment: .apple(jws: signed)), by: new).response == moved.response)
        #expect(s.apple.reads.count == reads)
    }

    /// upgradeBadgeSubscription's repeat of a granted tier is answered from the record (the tier the
    /// granted charge recorded) even once the catalog no longer prices the higher tier's product.
    @Test func anUpgradesRepeatIsAnsweredFromTheRecordAfterItsProductIsRetired() async throws {
        s.apple.answer("5900", .success(.charged(monthlyCharge("5901", start: at(2026, 3, 10), months: 12))))
        let key = Ed25519PrivateKey()
        let last = try #require(buy(try await jws("5901", original: "5900", product: "SUBSCR_BADGE_SUPPORTER_YEAR_01"), by: key)
            .statement?.entries.last)
        s.now = at(2026, 3, 20)
        s.apple.answer("5900", .success(.charged(monthlyCharge("5902", start: at(2026, 3, 20), type: .legend))))
        let legend = try await jws("5902", original: "5900", product: "SUBSCR_BADGE_LEGEND_MONTH_01")
        let granted = send(.upgradeBadgeSubscription(payment: .apple(jws: legend), balance: Balance(lastEntry: last)), by: key)
        #expect(granted.credential?.badgeType == .legend, "\(granted.response)")
        let reads = s.apple.reads.count
        try StoreProductAdmin(store: s.h.store).remove(store: "apple", productId: "SUBSCR_BADGE_LEGEND_MONTH_01", basePlanId: nil)
        let again = send(.upgradeBadgeSubscription(payment: .apple(jws: legend), balance: Balance(lastEntry: last)), by: key)
        #expect(again.credential == granted.credential, "\(again.response)")
        #expect(again.statement?.entries == granted.statement?.entries)
        #expect(s.apple.reads.count == reads)
        // A transaction of a tier never granted is still priced: the retired product is unavailable.
        let other = try await jws("5903", original: "5900", product: "SUBSCR_BADGE_LEGEND_MONTH_01")
        #expect(send(.upgradeBadgeSubscription(payment: .apple(jws: other), balance: Balance(lastEntry: last)), by: key).error
                == .productUnavailable)
    }

    /// Funding by receipt, presented by the key a subscription funds, follows the subscription's
    /// rules: the answer carries its state, and once transferBadge moved it away, `ended` with no
    /// credential, as every command answers an old purchase.
    @Test func aSubscriptionPurchasesOwnReceiptIsAnsweredAsTheSubscriptionIs() async throws {
        s.apple.answer("6000", .success(.charged(monthlyCharge("6001", start: at(2026, 3, 10)))))
        let signed = try await jws("6001", original: "6000", product: "SUBSCR_BADGE_SUPPORTER_MONTH_01")
        let key = Ed25519PrivateKey()
        let bought = buy(signed, by: key)
        guard case .badgeCredential(let credential, _, let receipt?, .renewing) = bought.response else {
            Issue.record("\(bought.response)"); return
        }
        let funded = send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .receipt(receipt: receipt), upgrade: nil), by: key)
        #expect(funded.response.subscriptionState == .renewing, "\(funded.response)")
        #expect(funded.credential == credential)

        #expect(send(.transferBadge(masterKey: SecureRandom.bytes(32), payment: .apple(jws: signed)), by: Ed25519PrivateKey())
            .credential != nil)
        let ended = send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .receipt(receipt: receipt), upgrade: nil), by: key)
        #expect(ended.response.subscriptionState == .ended, "\(ended.response)")
        #expect(ended.credential == nil)
    }
}
