/// Why a credential, issuer key or key file was refused.
public enum CredentialError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The secret key text or bytes are not a BBS secret (32 bytes, scalar in [1, r-1]).
    case invalidSecretKey
    /// The public key text or bytes are not a valid compressed G2 point (see `reason`).
    case invalidPublicKey(reason: String)
    /// The master key is not 32 bytes.
    case invalidMasterKey(byteCount: Int)
    /// The signature is not 80 bytes.
    case invalidSignatureLength(byteCount: Int)
    /// Expiries are signed as whole seconds only (`YYYY-MM-DDTHH:MM:SSZ`).
    case expiryNotWholeSecond(String)
    /// Issuer key indexes are 1 … 8.
    case invalidKeyIndex(Int)
    /// The secret configured for `index` derives a different public key than the one configured.
    case publicKeyMismatch(index: Int, derived: String, configured: String)
    /// The active index has no key, or no secret key to sign with.
    case noActiveSigningKey(index: Int)
    /// Credential JSON that does not have the expected shape.
    case malformedCredential(String)
    /// An issuer key file that does not have the expected shape.
    case malformedKeyFile(String)
    /// BBS refused to sign (never expected with valid keys).
    case signingFailed(String)

    public var description: String {
        switch self {
        case .invalidSecretKey: "invalid issuer secret key"
        case .invalidPublicKey(let reason): "invalid issuer public key: \(reason)"
        case .invalidMasterKey(let n): "master key must be 32 bytes, got \(n)"
        case .invalidSignatureLength(let n): "signature must be 80 bytes, got \(n)"
        case .expiryNotWholeSecond(let t): "expiry must be a whole second: \(t)"
        case .invalidKeyIndex(let i): "issuer key index must be 1…8, got \(i)"
        case .publicKeyMismatch(let i, let derived, let configured):
            "issuer key \(i): the secret key's public key \(derived) differs from the configured \(configured)"
        case .noActiveSigningKey(let i): "no secret key for the active issuer key index \(i)"
        case .malformedCredential(let why): "malformed credential: \(why)"
        case .malformedKeyFile(let why): "malformed issuer key file: \(why)"
        case .signingFailed(let why): "BBS signing failed: \(why)"
        }
    }
}
