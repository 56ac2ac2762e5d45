import BadgeCore
import JSON

/// The verdict on a signed transaction a client presented: verified, or refused in the spec's
/// class with a reason for the log.
public enum AppStoreTransactionVerdict: Sendable, Equatable {
    case verified(AppStoreTransaction, claim: AppStoreClaim)
    case refused(AppStoreRefusal)
}

/// Verifies App Store signed data offline (stores.md A4) and classifies every failure as the
/// spec's App Store list does. Pure apart from OpenSSL: no clock, no network, no ledger.
public struct AppStoreVerifier: Sendable {
    public let bundleId: String
    /// The development switch: a deployment that credits Sandbox transactions instead of
    /// answering test_purchase. Off in production.
    public let creditsSandbox: Bool
    private let chain: AppleChainVerifier

    public init(roots: AppleRootCertificates, bundleId: String, creditsSandbox: Bool = false) {
        self.bundleId = bundleId
        self.creditsSandbox = creditsSandbox
        chain = AppleChainVerifier(roots: roots)
    }

    /// The verdict on a transaction JWS a client presented (`payment.jws`).
    public func verdict(onTransaction jws: String) -> AppStoreTransactionVerdict {
        do throws(AppStoreRefusal) {
            let (transaction, claim) = try verifyTransaction(jws)
            return .verified(transaction, claim: claim)
        } catch {
            return .refused(error)
        }
    }

    /// The pipeline, in the order of the spec's App Store lists: the claim is read before
    /// anything is verified; then the evidence's shape and Apple's signatures (header, every x5c
    /// entry, leaf ← intermediate, the chain to a configured root, the JWS signature); then this
    /// service's judgements (payload, bundle, claim, quantity); the terminal refusals about the
    /// transaction itself last, so a doubt is never terminal. Each step throws the class and
    /// reason of the first check that fails.
    func verifyTransaction(_ text: String) throws(AppStoreRefusal) -> (AppStoreTransaction, AppStoreClaim) {
        let jws = try CompactJWS.split(text)
        let claim = try AppStoreClaim.read(jws)
        try verifySignature(jws, what: "transaction")
        let transaction = try AppStoreTransaction.decode(jws.payload)
        try judge(transaction, claimed: claim)
        return (transaction, claim)
    }

    /// The service's judgements on a transaction Apple's signature vouched for: this app's
    /// bundle, the transaction claimed, quantity 1 (internal), then not Sandbox (test_purchase)
    /// and not refunded or revoked (receipt_invalid).
    func judge(_ transaction: AppStoreTransaction, claimed claim: AppStoreClaim) throws(AppStoreRefusal) {
        guard transaction.bundleId == bundleId else { throw .internal("transaction is for another app's bundleId") }
        guard transaction.transactionId == claim.transactionId,
              claim.originalTransactionId == nil || transaction.originalTransactionId == claim.originalTransactionId
        else { throw .internal("verified transaction is not the one claimed") }
        guard transaction.quantity == 1 else { throw .internal("transaction quantity is \(transaction.quantity), not 1") }
        if transaction.environment == .sandbox && !creditsSandbox { throw .test("Sandbox transaction") }
        if transaction.revocationDate != nil { throw .invalid("transaction has a revocationDate (refunded or revoked)") }
    }

    /// Header (all three x5c entries) → the leaf's signature by the intermediate → the chain at
    /// the payload's signedDate → 64-byte ES256 signature by the leaf.
    func verifySignature(_ jws: CompactJWS, what: String) throws(AppStoreRefusal) {
        let header = try JWSHeader.read(jws.headerBytes)
        let signedDate = try PayloadFields(object: jws.payload, what: what).time("signedDate")
        let leaf = try chain.verify(leaf: header.leaf, intermediate: header.intermediate, at: signedDate.seconds)
        guard jws.signature.count == 64 else { throw .invalid("JWS signature is \(jws.signature.count) bytes, not 64") }
        guard leaf.isValidES256(signature: jws.signature, message: jws.signingInput) else {
            throw .invalid("JWS signature does not verify against the leaf")
        }
    }
}
