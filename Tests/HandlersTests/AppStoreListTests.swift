import AppStore
import BadgeCore
import Crypto
import Foundation
import Handlers
import JSON
import Schema
import TestSupport
import Testing

/// The protocol's App Store lists the purchase path judges rather than the verifier (spec,
/// "Which class an answer belongs to", App Store), one case per list item, named after it; the
/// verifier's lists are the cases of AppStoreTests' AppStoreVerdictListTests.
@Suite struct AppStoreListTests {
    static let bundle = "chat.simplex.badges.test"

    struct Item: Sendable, CustomTestStringConvertible {
        let list: ErrorCode
        let item: String
        var testDescription: String { "\(list.rawValue): \(item)" }
    }

    static let items: [Item] = [
        Item(list: .productUnavailable, item: "a product this service does not price — the verifier vouched for the transaction either way"),
        Item(list: .providerNotConfigured, item: "the deployment has no [apple] section"),
        Item(list: .providerNotConfigured, item: "for a subscription, an [apple] section without an App Store Server API key"),
    ]

    @Test(arguments: items) func eachListItemIsAnsweredInItsClass(_ item: Item) async throws {
        let s = try SubscriptionHarness(at: at(2026, 3, 10))
        let pki = TemporaryDirectory("appstore-list-pki")
        let path = pki.path
        _ = try await onOwnThread { try PeerPython.run(script: "appstore_peer.py", arguments: ["pki", path]) }
        let root = try Data(contentsOf: URL(fileURLWithPath: pki.file("root.der")))
        let funding = AppStoreFunding(verifier: AppStoreVerifier(roots: try #require(AppleRootCertificates(der: [Array(root)])),
                                                                 bundleId: Self.bundle))

        func sign(_ product: String, subscription: Bool) async throws -> String {
            let ms = Int(s.now.seconds) * 1000
            var payload: JSONObject = [
                "transactionId": "6001", "originalTransactionId": "6000", "bundleId": .string(Self.bundle),
                "productId": .string(product), "purchaseDate": .number(JSONNumber(ms - 60_000)), "quantity": 1,
                "type": subscription ? "Auto-Renewable Subscription" : "Consumable", "inAppOwnershipType": "PURCHASED",
                "signedDate": .number(JSONNumber(ms)), "environment": "Production",
            ]
            if subscription { payload["expiresDate"] = .number(JSONNumber(ms + 30 * 86_400_000)) }
            let input = Data(JSONValue.object(payload).serialized())
            let out = try await onOwnThread { try PeerPython.run(script: "appstore_peer.py", arguments: ["sign", path], input: input) }
            return String(decoding: out, as: UTF8.self)
        }
        func answer(_ service: BadgeService, _ jws: String) -> ErrorCode? {
            let key = Ed25519PrivateKey()
            let request = RPCRequest(purchaseKey: key.publicKey.purchaseKeyText,
                                     command: .purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .apple(jws: jws), upgrade: nil))
            return service.handle(body: request.json.serialized(), caller: .signer(key.publicKey)).error
        }

        switch item.list {
        case .productUnavailable:
            // Verified, of a product the catalog does not list: one-time and subscription alike.
            let service = BadgeService(store: s.h.store, issuer: s.h.issuer, clock: s.h.clock.function, appStore: funding,
                                       subscriptionStores: [s.apple], configuration: .init(catalogCacheSeconds: 0))
            #expect(answer(service, try await sign("NOT_PRICED_01", subscription: false)) == item.list)
            #expect(answer(service, try await sign("SUBSCR_NOT_PRICED_MONTH_01", subscription: true)) == item.list)
        case .providerNotConfigured where item.item.hasPrefix("the deployment"):
            let service = BadgeService(store: s.h.store, issuer: s.h.issuer, clock: s.h.clock.function,
                                       configuration: .init(catalogCacheSeconds: 0))
            #expect(answer(service, try await sign("BADGE_SUPPORTER_01", subscription: false)) == item.list)
            #expect(answer(service, try await sign("SUBSCR_BADGE_SUPPORTER_MONTH_01", subscription: true)) == item.list)
        default:
            // Offline verification is deployed, the subscription status reader is not.
            let service = BadgeService(store: s.h.store, issuer: s.h.issuer, clock: s.h.clock.function, appStore: funding,
                                       configuration: .init(catalogCacheSeconds: 0))
            #expect(answer(service, try await sign("SUBSCR_BADGE_SUPPORTER_MONTH_01", subscription: true)) == item.list)
        }
    }
}
