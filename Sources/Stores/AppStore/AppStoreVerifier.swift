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

    /// The pipeline, in the order the checks must run: the claim is read before anything is
    /// verified; Apple-side facts (signature) before this service's judgements (bundle,
    /// claim, quantity), and the terminal refusals last, so a doubt is never terminal.
    func verifyTransaction(_ text: String) throws(AppStoreRefusal) -> (AppStoreTransaction, AppStoreClaim) {
        let jws = try CompactJWS.split(text)
        let claim = try AppStoreClaim.read(jws)
        try verifySignature(jws, what: "transaction")
        let transaction = try AppStoreTransaction.decode(jws.payload)
        guard transaction.bundleId == bundleId else { throw .internal("transaction is for another app's bundleId") }
        guard transaction.transactionId == claim.transactionId,
              claim.originalTransactionId == nil || transaction.originalTransactionId == claim.originalTransactionId
        else { throw .internal("verified transaction is not the one claimed") }
        guard transaction.quantity == 1 else { throw .internal("transaction quantity is \(transaction.quantity), not 1") }
        if transaction.environment == .sandbox && !creditsSandbox { throw .test("Sandbox transaction") }
        if transaction.revocationDate != nil { throw .invalid("transaction has a revocationDate (refunded or revoked)") }
        return (transaction, claim)
    }

    /// Header → chain at the payload's signedDate → 64-byte ES256 signature by the leaf.
    func verifySignature(_ jws: CompactJWS, what: String) throws(AppStoreRefusal) {
        let header = try JWSHeader.read(jws.header)
        let signedDate = try PayloadFields(object: jws.payload, what: what).time("signedDate")
        let leaf = try chain.verify(leafDER: header.leafDER, intermediateDER: header.intermediateDER, at: signedDate.seconds)
        guard jws.signature.count == 64 else { throw .invalid("JWS signature is \(jws.signature.count) bytes, not 64") }
        guard leaf.isValidES256(signature: jws.signature, message: jws.signingInput) else {
            throw .invalid("JWS signature does not verify against the leaf")
        }
    }
}
