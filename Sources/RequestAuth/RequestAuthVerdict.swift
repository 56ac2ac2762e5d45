import BadgeCore
import Crypto

/// The outcome of authenticating one request.
public enum RequestAuthVerdict: Hashable, Sendable {
    /// No signature and no forwarded signer key: the gateway accepts this only for `getBadgeCatalog` without `purchaseKey`.
    case unsigned
    /// The request is signed by (or forwarded for) this signer.
    case valid(VerifiedSigner)
    /// Refused: answer with the failure's reason and touch nothing.
    case invalid(RequestAuthFailure)
}

/// A signer whose key authentication has established.
public struct VerifiedSigner: Hashable, Sendable {
    /// The ways a key can be established.
    public enum Source: Hashable, Sendable {
        /// An RFC 9421 signature with this label and `created` time (Unix seconds) verified.
        case httpSignature(label: String, created: Int64)
        /// The trusted front forwarded the key in `Badge-Signer-Key`.
        case trustedFront
    }

    /// The signer's Ed25519 key.
    public let publicKey: Ed25519PublicKey
    /// The key as received (`keyid` or `Badge-Signer-Key`): the canonical purchase key text.
    public let keyID: String
    /// How the key was established.
    public let source: Source

    /// A signer as the pipeline establishes it (public for tests and fakes of the RPC layer).
    public init(publicKey: Ed25519PublicKey, keyID: String, source: Source) {
        self.publicKey = publicKey
        self.keyID = keyID
        self.source = source
    }

    /// Whether an envelope's `purchaseKey` names this signer; see ``PurchaseKey/matches(_:_:)``.
    public func matches(purchaseKey: String) -> Bool { PurchaseKey.matches(purchaseKey, publicKey) }
}
