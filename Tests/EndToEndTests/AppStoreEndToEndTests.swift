import BadgeCore
import Crypto
import Foundation
import JSON
import Ledger
import Schema
import TestSupport
import Testing

/// Issue 10 on the release binary over HTTP: `[apple]` configured with a test PKI
/// (Tests/Peers/appstore_peer.py), every App Store verdict of the spec answered in its class,
/// and a one-time purchase credited, replayed and refused to another key.
@Suite(.serialized, .timeLimit(.minutes(5))) struct AppStoreEndToEndTests {
    static var release: String {
        get throws {
            let path = Repository.root.appendingPathComponent(".build/release/badge-service").path
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw ServiceProcess.Failure("no release binary at \(path): run `swift build -c release --product badge-service` (scripts/test does)")
            }
            return path
        }
    }

    static func service(bundle: String, roots: [String], in data: TemporaryDirectory) throws -> ServiceProcess {
        let config = data.file("badge-service.ini")
        try Data("""
        [apple]
        bundle_id = \(bundle)
        root_certificates = \(roots.joined(separator: ", "))
        """.utf8).write(to: URL(fileURLWithPath: config))
        return try ServiceProcess(data: data, arguments: ["--config", config], executable: try release)
    }

    static func purchase(_ service: ServiceProcess, jws: String, key: Ed25519PrivateKey, masterKey: [UInt8]) throws -> HTTPReply {
        try HTTP.rpc(service, HTTP.envelope(["type": "purchaseBadge", "masterKey": .string(Base64URL.encode(masterKey)),
                                             "payment": ["type": "apple", "jws": .string(jws)]], key: key), key: key)
    }

    @Test func aOneTimePurchaseIsCreditedReplayedAndRefusedToAnotherKey() throws {
        let data = TemporaryDirectory("e2e-apple")
        let pki = TemporaryDirectory("e2e-apple-pki")
        try PeerPython.run(script: "appstore_peer.py", arguments: ["pki", pki.path])
        let service = try Self.service(bundle: "chat.simplex.badges.test", roots: [pki.file("root.pem")], in: data)
        defer { _ = service.stop() }

        let now = Int64(Date().timeIntervalSince1970) * 1000
        let payload: JSONValue = [
            "transactionId": "2000000900000001", "originalTransactionId": "2000000900000001", "bundleId": "chat.simplex.badges.test",
            "productId": "BADGE_SUPPORTER_01", "purchaseDate": .number(JSONNumber(Int(now - 5000))), "quantity": 1,
            "type": "Consumable", "inAppOwnershipType": "PURCHASED", "signedDate": .number(JSONNumber(Int(now))),
            "environment": "Production",
        ]
        let jws = String(decoding: try PeerPython.run(script: "appstore_peer.py", arguments: ["sign", pki.path],
                                                      input: Data(payload.serialized())), as: UTF8.self)
        let key = Ed25519PrivateKey(), master = SecureRandom.bytes(32)
        let first = try Self.purchase(service, jws: jws, key: key, masterKey: master)
        #expect(first.status == 200, "\(first.text)")
        guard case .badgeCredential(let credential, let statement, let receipt, let subscription)? = first.response else {
            Issue.record("not a credential: \(first.text)")
            return
        }
        #expect(credential?.badgeType == .supporter)
        #expect(statement.entries.map(\.changeMonths) == [1, -1])
        #expect(statement.entries.map(\.entryType) == [.credit(.payment(invoiceId: nil)), .debit(.badge)])
        #expect(receipt != nil && subscription == nil)

        // The same request again: the same answer, nothing written.
        let again = try Self.purchase(service, jws: jws, key: key, masterKey: master)
        #expect(again.status == 200 && again.body == first.body)
        // Another key presenting it: receipt_used.
        let other = try Self.purchase(service, jws: jws, key: Ed25519PrivateKey(), masterKey: SecureRandom.bytes(32))
        #expect(other.status == 409 && other.response?.errorCode == .receiptUsed)
        // The same transaction signed again (a restore makes a new JWS): still receipt_used for another key.
        let resigned = String(decoding: try PeerPython.run(script: "appstore_peer.py", arguments: ["sign", pki.path],
                                                           input: Data(payload.serialized())), as: UTF8.self)
        #expect(resigned != jws)
        #expect(try Self.purchase(service, jws: resigned, key: Ed25519PrivateKey(), masterKey: SecureRandom.bytes(32)).response?.errorCode == .receiptUsed)
        // A product this service does not price.
        var unpriced = payload
        if case .object(var o) = unpriced { o["transactionId"] = "2000000900000002"; o["productId"] = "SOMETHING_ELSE"; unpriced = .object(o) }
        let unpricedJWS = String(decoding: try PeerPython.run(script: "appstore_peer.py", arguments: ["sign", pki.path],
                                                              input: Data(unpriced.serialized())), as: UTF8.self)
        let refused = try Self.purchase(service, jws: unpricedJWS, key: Ed25519PrivateKey(), masterKey: SecureRandom.bytes(32))
        #expect(refused.status == 404 && refused.response?.errorCode == .productUnavailable)
        // The log names no JWS.
        #expect(!service.accessLog.contains(jws.prefix(40)))
    }

    /// A store one-time upgrade (docs/protocol.md, Upgrades, Store one-time) over HTTP: an upgrade
    /// SKU priced with `catalog set-product --kind upgrade`, bought by a new key proving an
    /// unexpired supporter badge by its receipt and signature; the old purchase is debited
    /// `upgrade`, and a forged proof is receipt_invalid. Every statement passes the replica check.
    @Test func anUpgradeSKUReplacesACheaperBadge() throws {
        let data = TemporaryDirectory("e2e-apple-upgrade-sku")
        let pki = TemporaryDirectory("e2e-apple-upgrade-sku-pki")
        try PeerPython.run(script: "appstore_peer.py", arguments: ["pki", pki.path])
        let service = try Self.service(bundle: "chat.simplex.badges.test", roots: [pki.file("root.pem")], in: data)
        defer { _ = service.stop() }
        func jws(transaction: String, product: String) throws -> String {
            let now = Int64(Date().timeIntervalSince1970) * 1000
            let payload: JSONValue = [
                "transactionId": .string(transaction), "originalTransactionId": .string(transaction),
                "bundleId": "chat.simplex.badges.test", "productId": .string(product),
                "purchaseDate": .number(JSONNumber(Int(now - 5000))), "quantity": 1, "type": "Consumable",
                "inAppOwnershipType": "PURCHASED", "signedDate": .number(JSONNumber(Int(now))), "environment": "Production",
            ]
            return String(decoding: try PeerPython.run(script: "appstore_peer.py", arguments: ["sign", pki.path],
                                                       input: Data(payload.serialized())), as: UTF8.self)
        }
        let old = Ed25519PrivateKey(), new = Ed25519PrivateKey()
        let bought = try Self.purchase(service, jws: try jws(transaction: "2000000900000301", product: "BADGE_SUPPORTER_01"),
                                       key: old, masterKey: SecureRandom.bytes(32))
        guard case .badgeCredential(_?, let oldStatement, let receipt?, nil)? = bought.response else {
            Issue.record("not a credential: \(bought.text)")
            return
        }
        let oldLast = try #require(oldStatement.entries.last)
        let set = try CLIResult.run(["catalog", "set-product", "--store", "apple", "--product", "BADGE_LEGEND_UPGRADE_01",
                                     "--type", "legend", "--months", "1", "--kind", "upgrade", "--data", data.file("badge-data")],
                                    executable: try Self.release)
        #expect(set.status == 0, "\(set.stderr)")
        Thread.sleep(forTimeInterval: 1.1)

        func upgrade(_ transaction: String, by key: Ed25519PrivateKey, signedFor target: Ed25519PrivateKey) throws -> HTTPReply {
            let message = UpgradeProof.signedMessage(fromPurchaseKey: old.publicKey.purchaseKeyText,
                                                     toPurchaseKey: target.publicKey.purchaseKeyText, receipt: receipt)
            let proof = UpgradeProof(fromPurchaseKey: old.publicKey.purchaseKeyText, receipt: receipt,
                                     receiptSignature: old.signature(for: message), balance: Balance(lastEntry: oldLast))
            return try HTTP.rpc(service, HTTP.envelope([
                "type": "purchaseBadge", "masterKey": .string(Base64URL.encode(SecureRandom.bytes(32))),
                "payment": ["type": "apple", "jws": .string(try jws(transaction: transaction, product: "BADGE_LEGEND_UPGRADE_01"))],
                "upgrade": proof.json], key: key), key: key)
        }
        // Signed for another key: receipt_invalid, nothing written.
        let forged = try upgrade("2000000900000302", by: new, signedFor: Ed25519PrivateKey())
        #expect(forged.status == 422 && forged.response?.errorCode == .receiptInvalid, "\(forged.text)")

        let upgraded = try upgrade("2000000900000303", by: new, signedFor: new)
        #expect(upgraded.status == 200, "\(upgraded.text)")
        guard case .badgeCredential(let credential?, let statement, _?, nil)? = upgraded.response else {
            Issue.record("not a credential: \(upgraded.text)")
            return
        }
        #expect(credential.badgeType == .legend)
        #expect(statement.entries.map(\.entryType) == [.credit(.payment(invoiceId: nil)), .debit(.badge)])
        #expect(checkLedger(statement.entries, purchaseBadgeType: .legend) == nil)

        // The old key's next statement shows it replaced, naming the new key.
        let issue: JSONValue = ["type": "issueBadge", "balance": Balance(lastEntry: oldLast).json]
        let after = try HTTP.rpc(service, HTTP.envelope(issue, key: old), key: old)
        guard case .badgeCredential(_, let tail, _, _)? = after.response else { Issue.record("\(after.text)"); return }
        #expect(tail.entries.map(\.entryType) == [.debit(.upgrade(toPurchaseKey: new.publicKey.purchaseKeyText))])
        #expect(checkLedger(tail.entries, after: oldLast, purchaseBadgeType: .supporter) == nil)
    }

    @Test func storeProductsChangedByTheCatalogCommandsReachTheRunningService() throws {
        let data = TemporaryDirectory("e2e-apple-products")
        let pki = TemporaryDirectory("e2e-apple-products-pki")
        try PeerPython.run(script: "appstore_peer.py", arguments: ["pki", pki.path])
        let service = try Self.service(bundle: "chat.simplex.badges.test", roots: [pki.file("root.pem")], in: data)
        defer { _ = service.stop() }
        func jws(transaction: String, product: String) throws -> String {
            let now = Int64(Date().timeIntervalSince1970) * 1000
            let payload: JSONValue = [
                "transactionId": .string(transaction), "originalTransactionId": .string(transaction),
                "bundleId": "chat.simplex.badges.test", "productId": .string(product),
                "purchaseDate": .number(JSONNumber(Int(now - 5000))), "quantity": 1, "type": "Consumable",
                "inAppOwnershipType": "PURCHASED", "signedDate": .number(JSONNumber(Int(now))), "environment": "Production",
            ]
            return String(decoding: try PeerPython.run(script: "appstore_peer.py", arguments: ["sign", pki.path],
                                                       input: Data(payload.serialized())), as: UTF8.self)
        }
        func cli(_ arguments: [String]) throws {
            let result = try CLIResult.run(["catalog"] + arguments + ["--data", data.file("badge-data")], executable: try Self.release)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        // A product added while the service runs is priced within the cache's second, for what it grants.
        try cli(["set-product", "--store", "apple", "--product", "BADGE_LEGEND_03", "--type", "legend", "--months", "3",
                 "--kind", "one-time"])
        Thread.sleep(forTimeInterval: 1.1)
        let added = try Self.purchase(service, jws: try jws(transaction: "2000000900000101", product: "BADGE_LEGEND_03"),
                                      key: Ed25519PrivateKey(), masterKey: SecureRandom.bytes(32))
        guard case .badgeCredential(let credential, let statement, _, _)? = added.response else {
            Issue.record("not a credential: \(added.text)")
            return
        }
        #expect(credential?.badgeType == .legend)
        #expect(statement.entries.map(\.changeMonths) == [3, -1])
        // A product removed is product_unavailable from then on, and nothing is credited.
        try cli(["remove-product", "--store", "apple", "--product", "BADGE_SUPPORTER_01"])
        Thread.sleep(forTimeInterval: 1.1)
        let removed = try Self.purchase(service, jws: try jws(transaction: "2000000900000102", product: "BADGE_SUPPORTER_01"),
                                        key: Ed25519PrivateKey(), masterKey: SecureRandom.bytes(32))
        #expect(removed.status == 404 && removed.response?.errorCode == .productUnavailable, "\(removed.text)")
    }

    @Test func everyVariantOfTheDifferentialCorpusIsAnsweredInItsClassOverHTTP() throws {
        let output = try PeerPython.run(script: "appstore_peer.py", arguments: ["corpus"])
        let document = try JSONValue.parse(Array(output))
        let data = TemporaryDirectory("e2e-apple-corpus")
        var roots: [String] = []
        for (i, root) in (document["roots"]?.arrayValue ?? []).enumerated() {
            let path = data.file("root\(i).der")
            try Data(try #require(root.stringValue.flatMap(Base64URL.decodeStandard))).write(to: URL(fileURLWithPath: path))
            roots.append(path)
        }
        let service = try Self.service(bundle: try #require(document["bundleId"]?.stringValue), roots: roots, in: data)
        defer { _ = service.stop() }

        var credited = false
        for variant in try #require(document["variants"]?.arrayValue) {
            let name = try #require(variant["name"]?.stringValue)
            let expected = try #require(appStoreCorpusClasses[name])
            let reply = try Self.purchase(service, jws: try #require(variant["jws"]?.stringValue), key: Ed25519PrivateKey(),
                                          masterKey: SecureRandom.bytes(32))
            let code = reply.response?.errorCode
            switch expected {
            case "verified":
                // Every verified one-time variant claims the same transaction: credited once, then receipt_used.
                if credited { #expect(code == .receiptUsed, "\(name): \(reply.text)") } else {
                    #expect(reply.status == 200, "\(name): \(reply.text)")
                    credited = reply.status == 200
                }
            case "subscription":
                #expect(code == .providerNotConfigured, "\(name): \(reply.text)")
            default:
                #expect(code?.rawValue == expected, "\(name): \(reply.text)")
            }
        }
    }
}

/// The spec's class of each corpus variant over HTTP (Tests/AppStoreTests holds the same table
/// for the verifier alone): "verified" is credited or receipt_used, "subscription" needs the
/// App Store Server API.
let appStoreCorpusClasses: [String: String] = [
    "valid": "verified", "valid_subscription": "subscription", "leaf_expired_now_valid_at_signed_date": "verified",
    "high_s_signature": "verified", "padded_signature": "verified", "unknown_extra_field": "verified",
    "sandbox": "test_purchase", "sandbox_subscription": "test_purchase", "revoked": "receipt_invalid",
    "two_parts": "receipt_invalid", "four_parts": "receipt_invalid", "empty": "receipt_invalid",
    "not_base64url": "receipt_invalid", "no_transaction_id": "receipt_invalid",
    "payload_not_object": "receipt_invalid", "subscription_no_original_id": "receipt_invalid",
    "x5c_leaf_not_base64": "receipt_invalid", "x5c_intermediate_not_base64": "receipt_invalid",
    "x5c_root_not_base64": "receipt_invalid", "der_signature": "receipt_invalid",
    "signature_63_bytes": "receipt_invalid", "leaf_not_signed_by_intermediate": "receipt_invalid",
    "leaf_from_other_pki": "receipt_invalid", "signed_by_other_key": "receipt_invalid",
    "unconfigured_root": "internal", "xcode_storekit_testing": "internal", "another_bundle": "internal",
    "alg_es384": "internal", "alg_none": "internal", "alg_missing": "internal", "header_not_json": "internal",
    "header_json_array": "internal", "x5c_two": "internal", "x5c_four": "internal", "x5c_missing": "internal",
    "x5c_entry_not_string": "internal", "x5c_leaf_not_der": "internal", "x5c_intermediate_not_der": "internal",
    "third_x5c_garbage": "internal", "x5c_root_empty": "internal", "leaf_signed_with_rsa": "internal",
    "leaf_ed25519_key": "internal", "leaf_without_marker": "internal", "intermediate_without_marker": "internal",
    "leaf_marker_critical": "internal", "intermediate_not_ca": "internal", "leaf_p384": "internal",
    "leaf_expired_at_signed_date": "internal", "leaf_not_yet_valid_at_signed_date": "internal",
    "missing_purchase_date": "internal", "missing_signed_date": "internal", "quantity_string": "internal",
    "purchase_date_string": "internal", "transaction_id_number": "internal", "unknown_environment": "internal",
    "unknown_type": "internal", "quantity_two": "internal",
]
