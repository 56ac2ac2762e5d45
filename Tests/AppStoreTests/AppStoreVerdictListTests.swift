@testable import AppStore
import BadgeCore
import Foundation
import JSON
import TestSupport
import Testing

/// The protocol's App Store lists ("Which class an answer belongs to", App Store), one case per
/// list item, named after it: evidence the throw-away test PKI (Tests/Peers/appstore_peer.py)
/// makes for that item, judged in the item's class. The two lists the handlers judge
/// (product_unavailable, provider_not_configured) are cases of HandlersTests' AppStoreListTests.
@Suite(.timeLimit(.minutes(5))) struct AppStoreVerdictListTests {
    /// What a list item is shown with.
    enum Evidence: Sendable {
        /// Variants of the differential corpus, each presented as a transaction (`purchaseBadge`).
        case transactions([String])
        /// Get All Subscription Statuses answers, each judged by the verifier.
        case status([StatusAnswer])
        /// Calls of the App Store Server API client against the fake of Tests/Peers/fake_appstore.py.
        case serverAPI([ServerAPICall])
        /// A verified transaction judged against another claim than its own.
        case claimedOther
    }

    enum StatusAnswer: String, Sendable {
        case http404, http429, http500, http503, namesNoSuchSubscription, http401, http403, notJSON, entryUnreadable,
             unreadableEntryForAnotherSubscription, transactionSignatureForged, renewalSignatureForged, consumableTransaction,
             renewalInfoNotRenewalInfo, anotherBundle, transactionForAnotherSubscription, renewalForAnotherSubscription,
             environmentXcode, transactionEnvironmentXcode, unknownStatus, sandboxAnswer, sandboxTransaction, sandboxRenewal,
             familyShared
    }

    enum ServerAPICall: String, Sendable, CaseIterable {
        case closedPort, timeout, overAMebibyte, overAMebibyteChunked, idNotAllDigits
    }

    struct Item: Sendable, CustomTestStringConvertible {
        /// The list the spec puts the item in: its class, or `read` for what is no refusal.
        let list: String
        /// The item, worded as the spec words it.
        let item: String
        let evidence: Evidence
        var testDescription: String { "\(list): \(item)" }
    }

    static let items: [Item] = [
        // receipt_invalid
        Item(list: "receipt_invalid", item: "a JWS that is not three base64url parts",
             evidence: .transactions(["two_parts", "four_parts", "empty", "not_base64url"])),
        Item(list: "receipt_invalid", item: "a JWS that names no transactionId",
             evidence: .transactions(["no_transaction_id", "payload_not_object"])),
        Item(list: "receipt_invalid", item: "an auto-renewable subscription that names no originalTransactionId",
             evidence: .transactions(["subscription_no_original_id"])),
        Item(list: "receipt_invalid", item: "an x5c certificate that is not base64",
             evidence: .transactions(["x5c_leaf_not_base64", "x5c_intermediate_not_base64", "x5c_root_not_base64"])),
        Item(list: "receipt_invalid", item: "a JWS signature that is not 64 bytes",
             evidence: .transactions(["signature_63_bytes", "der_signature"])),
        Item(list: "receipt_invalid", item: "a leaf whose signature does not verify against the intermediate",
             evidence: .transactions(["leaf_not_signed_by_intermediate", "leaf_from_other_pki"])),
        Item(list: "receipt_invalid", item: "a JWS signature that does not verify against the leaf",
             evidence: .transactions(["signed_by_other_key"])),
        Item(list: "receipt_invalid", item: "a transaction with a revocationDate, refunded or revoked",
             evidence: .transactions(["revoked"])),
        Item(list: "receipt_invalid", item: "a subscription status whose transaction is family-shared",
             evidence: .status([.familyShared])),
        // test_purchase
        Item(list: "test_purchase", item: "refused by the service after the verifier vouched for it, a Sandbox transaction",
             evidence: .transactions(["sandbox", "sandbox_subscription"])),
        Item(list: "test_purchase", item: "a subscription status from the Sandbox environment",
             evidence: .status([.sandboxAnswer, .sandboxTransaction, .sandboxRenewal])),
        // provider_unavailable, for a subscription's status only
        Item(list: "provider_unavailable", item: "network failure or timeout", evidence: .serverAPI([.closedPort, .timeout])),
        Item(list: "provider_unavailable",
             item: "every error response but 401 and 403 — a 404 included, 429 and 5xx among them",
             evidence: .status([.http404, .http429, .http500, .http503])),
        Item(list: "provider_unavailable", item: "an answer that names no such subscription",
             evidence: .status([.namesNoSuchSubscription])),
        // internal
        Item(list: "internal", item: "an intermediate whose signature verifies against none of the configured roots",
             evidence: .transactions(["unconfigured_root"])),
        Item(list: "internal", item: "another app's bundleId", evidence: .transactions(["another_bundle"])),
        Item(list: "internal", item: "a transaction from Xcode's StoreKit testing", evidence: .transactions(["xcode_storekit_testing"])),
        Item(list: "internal", item: "a header that does not name ES256",
             evidence: .transactions(["alg_es384", "alg_none", "alg_missing", "header_not_json", "header_json_array"])),
        Item(list: "internal", item: "a header that carries no x5c of exactly three certificates",
             evidence: .transactions(["x5c_two", "x5c_four", "x5c_missing", "x5c_entry_not_string"])),
        Item(list: "internal", item: "a certificate that does not decode",
             evidence: .transactions(["x5c_leaf_not_der", "x5c_intermediate_not_der", "third_x5c_garbage", "x5c_root_empty"])),
        Item(list: "internal", item: "a leaf signature the intermediate's key cannot check",
             evidence: .transactions(["leaf_signed_with_rsa"])),
        Item(list: "internal", item: "an algorithm or key type the library does not support",
             evidence: .transactions(["leaf_ed25519_key"])),
        Item(list: "internal", item: "a chain without Apple's receipt-signing marker extensions",
             evidence: .transactions(["leaf_without_marker", "intermediate_without_marker", "leaf_marker_critical"])),
        Item(list: "internal", item: "a leaf key that is not P-256", evidence: .transactions(["leaf_p384"])),
        Item(list: "internal", item: "a payload with a missing or mistyped field or an unknown environment",
             evidence: .transactions(["missing_purchase_date", "missing_signed_date", "quantity_string", "purchase_date_string",
                                      "transaction_id_number", "unknown_type", "unknown_environment"])),
        Item(list: "internal", item: "refused by the service, a verified transaction other than the one claimed",
             evidence: .claimedOther),
        Item(list: "internal", item: "refused by the service, a quantity other than 1", evidence: .transactions(["quantity_two"])),
        Item(list: "internal", item: "a subscription's status: Apple refusing this service's API token or key (401, 403)",
             evidence: .status([.http401, .http403])),
        Item(list: "internal", item: "a subscription's status: an original transaction id that is not all digits",
             evidence: .serverAPI([.idNotAllDigits])),
        Item(list: "internal", item: "a subscription's status: an answer over a mebibyte",
             evidence: .serverAPI([.overAMebibyte, .overAMebibyteChunked])),
        Item(list: "internal",
             item: "a subscription's status: an answer whose list of subscriptions or entry for this subscription cannot be read",
             evidence: .status([.notJSON, .entryUnreadable])),
        Item(list: "read", item: "a subscription's status: an unreadable entry for another subscription being ignored",
             evidence: .status([.unreadableEntryForAnotherSubscription])),
        Item(list: "internal", item: "a subscription's status: a signed transaction or renewal info that fails any check above",
             evidence: .status([.transactionSignatureForged, .renewalSignatureForged])),
        Item(list: "internal", item: "a subscription's status: one that is not a subscription transaction or renewal info",
             evidence: .status([.consumableTransaction, .renewalInfoNotRenewalInfo])),
        Item(list: "internal", item: "a subscription's status: one that names another app's bundle id or another subscription",
             evidence: .status([.anotherBundle, .transactionForAnotherSubscription, .renewalForAnotherSubscription])),
        Item(list: "internal", item: "a subscription's status: an unknown environment",
             evidence: .status([.environmentXcode, .transactionEnvironmentXcode])),
        Item(list: "internal", item: "a subscription's status: a status this service does not know", evidence: .status([.unknownStatus])),
    ]

    @Test(arguments: items) func eachListItemIsAnsweredInItsClass(_ item: Item) async throws {
        for (shown, answer) in try await answers(item.evidence) {
            #expect(answer == item.list, "\(shown): \(answer)")
        }
    }

    /// Each piece of evidence of `evidence`, named, with the class it is answered in.
    func answers(_ evidence: Evidence) async throws -> [(String, String)] {
        switch evidence {
        case .transactions(let names):
            let corpus = try Self.corpus.get()
            return try names.map { name in
                let variant = try #require(corpus.variants.first { $0.name == name }, "no corpus variant \(name)")
                switch corpus.verifier.verdict(onTransaction: variant.jws) {
                case .verified: return (name, "verified")
                case .refused(let refusal): return (name, refusal.answer.rawValue)
                }
            }
        case .claimedOther:
            let corpus = try Self.corpus.get()
            let valid = try #require(corpus.variants.first { $0.name == "valid" })
            let (transaction, claim) = try corpus.verifier.verifyTransaction(valid.jws)
            let other = AppStoreClaim(transactionId: claim.transactionId + "1", originalTransactionId: nil, isAutoRenewable: false)
            do throws(AppStoreRefusal) {
                try corpus.verifier.judge(transaction, claimed: other)
                return [("another transaction id", "verified")]
            } catch {
                return [("another transaction id", error.answer.rawValue)]
            }
        case .status(let answers):
            let fixture = try await onOwnThread { try StatusFixture() }
            var out: [(String, String)] = []
            for shown in answers { out.append((shown.rawValue, try await onOwnThread { try fixture.answer(shown) })) }
            return out
        case .serverAPI(let calls):
            let fixture = try await onOwnThread { try ServerAPIFixture() }
            var out: [(String, String)] = []
            for call in calls { out.append((call.rawValue, try await fixture.answer(call))) }
            return out
        }
    }

    /// Made once per test process: the peer makes every variant and judges it with Apple's library.
    static let corpus = Result { try AppStoreDifferentialTests.corpus() }

    static func answer(_ verdict: AppStoreStatusVerdict) -> String {
        switch verdict {
        case .read: "read"
        case .refused(let refusal): refusal.answer.rawValue
        case .unavailable: "provider_unavailable"
        }
    }

    /// Status answers signed by a PKI of their own, as Apple's server would send them.
    struct StatusFixture: Sendable {
        static let bundle = "chat.simplex.badges.test"
        static let original = "2000000700000001"
        let now = Timestamp(seconds: Int64(Date().timeIntervalSince1970))
        let pki = TemporaryDirectory("appstore-list")
        let verifier: AppStoreVerifier

        init() throws {
            try PeerPython.run(script: "appstore_peer.py", arguments: ["pki", pki.path])
            let der = try [UInt8](Data(contentsOf: URL(fileURLWithPath: pki.file("root.der"))))
            verifier = AppStoreVerifier(roots: try #require(AppleRootCertificates(der: [der])), bundleId: Self.bundle)
        }

        func sign(_ payload: JSONObject) throws -> String {
            String(decoding: try PeerPython.run(script: "appstore_peer.py", arguments: ["sign", pki.path],
                                                input: Data(JSONValue.object(payload).serialized())), as: UTF8.self)
        }

        func forged(_ jws: String) -> String {
            var bytes = Array(jws.utf8)
            bytes[bytes.count - 5] = bytes[bytes.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            return String(decoding: bytes, as: UTF8.self)
        }

        var transaction: JSONObject {
            let ms = Int(now.seconds) * 1000
            return ["transactionId": "2000000700000009", "originalTransactionId": .string(Self.original),
                    "bundleId": .string(Self.bundle), "productId": "SUBSCR_BADGE_SUPPORTER_MONTH_01",
                    "purchaseDate": .number(JSONNumber(ms - 86_400_000)), "expiresDate": .number(JSONNumber(ms + 29 * 86_400_000)),
                    "quantity": 1, "type": "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED",
                    "signedDate": .number(JSONNumber(ms)), "environment": "Production"]
        }

        var renewal: JSONObject {
            ["originalTransactionId": .string(Self.original), "productId": "SUBSCR_BADGE_SUPPORTER_MONTH_01", "autoRenewStatus": 1,
             "signedDate": .number(JSONNumber(Int(now.seconds) * 1000)), "environment": "Production"]
        }

        func changed(_ object: JSONObject, _ changes: JSONObject) -> JSONObject {
            var out = object
            for member in changes { out[member.key] = member.value == .null ? nil : member.value }
            return out
        }

        /// A 200 answer naming this subscription, its signed data built from the given fields.
        func body(status: JSONValue = 1, environment: String = "Production", bundle: String = bundle,
                  transaction tx: JSONObject = [:], renewal rn: JSONObject = [:], transactionJWS: String? = nil,
                  renewalJWS: String? = nil, others: [JSONValue] = []) throws -> [UInt8] {
            let entry: JSONValue = ["originalTransactionId": .string(Self.original), "status": status,
                                    "signedTransactionInfo": .string(try transactionJWS ?? sign(changed(transaction, tx))),
                                    "signedRenewalInfo": .string(try renewalJWS ?? sign(changed(renewal, rn)))]
            let document: JSONValue = ["environment": .string(environment), "bundleId": .string(bundle), "appAppleId": 1234,
                                       "data": [["subscriptionGroupIdentifier": "21000001",
                                                 "lastTransactions": .array(others + [entry])]]]
            return document.serialized()
        }

        func verdict(_ httpStatus: Int, _ body: [UInt8] = [], retryAfter: String? = nil) -> AppStoreStatusVerdict {
            verifier.statusVerdict(httpStatus: httpStatus, retryAfterHeader: retryAfter, body: body,
                                   originalTransactionId: Self.original, now: now)
        }

        func answer(_ shown: StatusAnswer) throws -> String {
            let error = Array(#"{"errorCode":4040010,"errorMessage":"x"}"#.utf8)
            let verdict: AppStoreStatusVerdict
            switch shown {
            case .http404: verdict = self.verdict(404, error)
            case .http429: verdict = self.verdict(429, retryAfter: String((now.seconds + 60) * 1000))
            case .http500: verdict = self.verdict(500)
            case .http503: verdict = self.verdict(503)
            case .namesNoSuchSubscription:
                let elsewhere: JSONValue = ["environment": "Production", "bundleId": .string(Self.bundle), "data": []]
                verdict = self.verdict(200, elsewhere.serialized())
            case .http401: verdict = self.verdict(401)
            case .http403: verdict = self.verdict(403)
            case .notJSON: verdict = self.verdict(200, Array("not json".utf8))
            case .entryUnreadable: verdict = self.verdict(200, try body(status: "x"))
            case .unreadableEntryForAnotherSubscription:
                verdict = self.verdict(200, try body(others: [["originalTransactionId": "1", "status": "x"]]))
            case .transactionSignatureForged: verdict = self.verdict(200, try body(transactionJWS: forged(try sign(transaction))))
            case .renewalSignatureForged: verdict = self.verdict(200, try body(renewalJWS: forged(try sign(renewal))))
            case .consumableTransaction: verdict = self.verdict(200, try body(transaction: ["type": "Consumable", "expiresDate": .null]))
            case .renewalInfoNotRenewalInfo: verdict = self.verdict(200, try body(renewalJWS: try sign(transaction)))
            case .anotherBundle: verdict = self.verdict(200, try body(bundle: "com.example.other"))
            case .transactionForAnotherSubscription:
                verdict = self.verdict(200, try body(transaction: ["originalTransactionId": "2000000700000002"]))
            case .renewalForAnotherSubscription:
                verdict = self.verdict(200, try body(renewal: ["originalTransactionId": "2000000700000002"]))
            case .environmentXcode: verdict = self.verdict(200, try body(environment: "Xcode"))
            case .transactionEnvironmentXcode: verdict = self.verdict(200, try body(transaction: ["environment": "Xcode"]))
            case .unknownStatus: verdict = self.verdict(200, try body(status: 9))
            case .sandboxAnswer: verdict = self.verdict(200, try body(environment: "Sandbox"))
            case .sandboxTransaction: verdict = self.verdict(200, try body(transaction: ["environment": "Sandbox"]))
            case .sandboxRenewal: verdict = self.verdict(200, try body(renewal: ["environment": "Sandbox"]))
            case .familyShared: verdict = self.verdict(200, try body(transaction: ["inAppOwnershipType": "FAMILY_SHARED"]))
            }
            return AppStoreVerdictListTests.answer(verdict)
        }
    }

    /// The App Store Server API client over HTTP: a closed port, and the fake of
    /// Tests/Peers/fake_appstore.py for what only an HTTP answer can show.
    struct ServerAPIFixture: Sendable {
        let fake: FakeAppStore
        let key: AppStoreAPIKey
        let verifier: AppStoreVerifier

        init() throws {
            fake = try FakeAppStore()
            key = try AppStoreAPIKey(p8: try fake.privateKeyPEM, keyId: fake.keyId, issuerId: fake.issuerId, bundleId: fake.bundleId)
            verifier = AppStoreVerifier(roots: try #require(AppleRootCertificates(der: [try fake.rootDER])), bundleId: fake.bundleId)
        }

        func answer(_ call: ServerAPICall) async throws -> String {
            func api(_ url: String) -> AppStoreServerAPI {
                AppStoreServerAPI(key: key, verifier: verifier, productionURL: url, sandboxURL: fake.sandboxURL, timeoutSeconds: 2)
            }
            let id = "20000009000000\(10 + ServerAPICall.allCases.firstIndex(of: call)!)"
            let asked = call == .idNotAllDigits ? "20000009/../1" : id
            let client: AppStoreServerAPI
            switch call {
            // A port nothing listens on.
            case .closedPort: client = api("http://127.0.0.1:1")
            case .timeout:
                try fake.script(id, mode: "slow", delaySeconds: 5)
                client = api(fake.productionURL)
            case .overAMebibyte:
                try fake.script(id, mode: "huge")
                client = api(fake.productionURL)
            case .overAMebibyteChunked:
                try fake.script(id, mode: "hugechunked")
                client = api(fake.productionURL)
            case .idNotAllDigits: client = api(fake.productionURL)
            }
            let now = Timestamp(seconds: Int64(Date().timeIntervalSince1970))
            let verdict = try await onOwnThread { client.subscriptionStatus(originalTransactionId: asked, now: now) }
            if call == .idNotAllDigits {
                // Never sent: the refusal is this service's own.
                #expect(try fake.requests().allSatisfy { $0["originalTransactionId"]?.stringValue != asked })
            }
            return AppStoreVerdictListTests.answer(verdict)
        }
    }
}
