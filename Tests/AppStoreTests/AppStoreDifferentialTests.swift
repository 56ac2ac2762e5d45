import AppStore
import BadgeCore
import Foundation
import JSON
import TestSupport
import Testing

/// Every JWS the test PKI makes (Tests/Peers/appstore_peer.py) judged twice: by our verifier,
/// in the spec's class, and by Apple's `app-store-server-library`. Acceptance agrees except
/// where the spec requires otherwise, each such difference named below.
@Suite(.timeLimit(.minutes(5))) struct AppStoreDifferentialTests {
    /// The spec's class for each variant ("Which class an answer belongs to", App Store list);
    /// nil: verified.
    static let specClass: [String: StoreVerdict?] = [
        "valid": nil, "valid_subscription": nil, "third_x5c_garbage": nil,
        "leaf_expired_now_valid_at_signed_date": nil, "high_s_signature": nil, "padded_signature": nil,
        "unknown_extra_field": nil,
        "sandbox": .testPurchase, "sandbox_subscription": .testPurchase,
        "revoked": .receiptInvalid, "two_parts": .receiptInvalid, "four_parts": .receiptInvalid, "empty": .receiptInvalid,
        "not_base64url": .receiptInvalid, "header_not_json": .receiptInvalid, "no_transaction_id": .receiptInvalid,
        "subscription_no_original_id": .receiptInvalid, "x5c_leaf_not_base64": .receiptInvalid,
        "der_signature": .receiptInvalid, "signature_63_bytes": .receiptInvalid,
        "leaf_not_signed_by_intermediate": .receiptInvalid, "signed_by_other_key": .receiptInvalid,
        "unconfigured_root": .internal, "xcode_storekit_testing": .internal, "another_bundle": .internal,
        "alg_es384": .internal, "x5c_two": .internal, "x5c_four": .internal, "x5c_missing": .internal,
        "x5c_leaf_not_der": .internal, "leaf_without_marker": .internal, "intermediate_without_marker": .internal,
        "leaf_marker_critical": .internal, "intermediate_not_ca": .internal, "leaf_p384": .internal,
        "leaf_expired_at_signed_date": .internal, "leaf_not_yet_valid_at_signed_date": .internal,
        "missing_purchase_date": .internal, "missing_signed_date": .internal, "quantity_string": .internal,
        "purchase_date_string": .internal, "unknown_environment": .internal, "unknown_type": .internal,
        "quantity_two": .internal,
    ]

    /// Variants Apple's verifier accepts and the spec refuses, each with the spec's reason.
    /// (No variant goes the other way: whatever the peer refuses, we refuse.)
    static let specRequiredDifferences: [String: String] = [
        "sandbox": "test_purchase: the service refuses a Sandbox transaction after the verifier vouched for it",
        "sandbox_subscription": "test_purchase: as sandbox, for a subscription",
        "revoked": "receipt_invalid: a transaction with a revocationDate; Apple's verifier does not judge revocation",
        "no_transaction_id": "receipt_invalid: the claim is read first and must name a transactionId",
        "subscription_no_original_id": "receipt_invalid: an auto-renewable subscription must name its originalTransactionId",
        "missing_purchase_date": "internal: a missing field; the peer's model makes every field optional",
        "missing_signed_date": "internal: a missing field; the peer checks the chain at the current time instead",
        "quantity_string": "internal: a mistyped field; the peer coerces \"1\" to 1",
        "unknown_type": "internal: a type this service does not know; the peer keeps it as rawType",
        "quantity_two": "internal: the service refuses a quantity other than 1",
    ]

    struct Corpus {
        let verifier: AppStoreVerifier
        let variants: [(name: String, jws: String, peer: String)]
    }

    static func corpus() throws -> Corpus {
        let output = try PeerPython.run(script: "appstore_peer.py", arguments: ["corpus"])
        let document = try JSONValue.parse(Array(output))
        let roots = try #require(document["roots"]?.arrayValue?.compactMap { $0.stringValue.flatMap(Base64URL.decodeStandard) })
        let bundle = try #require(document["bundleId"]?.stringValue)
        let verifier = AppStoreVerifier(roots: try #require(AppleRootCertificates(der: roots)), bundleId: bundle)
        let variants = try #require(document["variants"]?.arrayValue).map { v in
            (name: v["name"]?.stringValue ?? "", jws: v["jws"]?.stringValue ?? "", peer: v["peer"]?.stringValue ?? "")
        }
        return Corpus(verifier: verifier, variants: variants)
    }

    @Test func everyVariantIsJudgedInTheSpecClassAndAgreesWithApplesLibraryOrNamesWhyNot() throws {
        let corpus = try Self.corpus()
        #expect(Set(corpus.variants.map(\.name)) == Set(Self.specClass.keys))
        for variant in corpus.variants {
            let verdict = corpus.verifier.verdict(onTransaction: variant.jws)
            let ours: StoreVerdict?
            switch verdict {
            case .verified: ours = nil
            case .refused(let refusal): ours = refusal.answer
            }
            let expected = Self.specClass[variant.name] ?? nil
            #expect(ours == expected, "\(variant.name): ours \(String(describing: verdict)), spec \(String(describing: expected))")

            let peerAccepts = variant.peer == "OK"
            let weAccept = ours == nil
            if let reason = Self.specRequiredDifferences[variant.name] {
                #expect(peerAccepts && !weAccept, "\(variant.name) is listed as a difference (\(reason)) but peer says \(variant.peer)")
            } else {
                #expect(peerAccepts == weAccept, "\(variant.name): peer \(variant.peer), ours \(String(describing: verdict))")
            }
        }
    }

    @Test func theVerifiedTransactionCarriesThePayloadAndTheClaim() throws {
        let corpus = try Self.corpus()
        let subscription = try #require(corpus.variants.first { $0.name == "valid_subscription" })
        guard case .verified(let transaction, let claim) = corpus.verifier.verdict(onTransaction: subscription.jws) else {
            Issue.record("valid_subscription did not verify")
            return
        }
        #expect(transaction.kind == .autoRenewable)
        #expect(transaction.productId == "SUBSCR_BADGE_SUPPORTER_MONTH_01")
        #expect(transaction.environment == .production)
        #expect(transaction.expiresDate != nil)
        #expect(claim.purchaseId == transaction.originalTransactionId)
        #expect(try AppStoreClaim.read(subscription.jws) == claim)
    }

    @Test func theDevelopmentSwitchCreditsSandbox() throws {
        let output = try PeerPython.run(script: "appstore_peer.py", arguments: ["corpus"])
        let document = try JSONValue.parse(Array(output))
        let roots = try #require(document["roots"]?.arrayValue?.compactMap { $0.stringValue.flatMap(Base64URL.decodeStandard) })
        let development = AppStoreVerifier(roots: try #require(AppleRootCertificates(der: roots)),
                                           bundleId: try #require(document["bundleId"]?.stringValue), creditsSandbox: true)
        let sandbox = try #require(document["variants"]?.arrayValue?.first { $0["name"]?.stringValue == "sandbox" })
        guard case .verified(let transaction, _) = development.verdict(onTransaction: try #require(sandbox["jws"]?.stringValue)) else {
            Issue.record("a development deployment refused a Sandbox transaction")
            return
        }
        #expect(transaction.environment == .sandbox)
    }
}
