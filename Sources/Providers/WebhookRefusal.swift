/// Why a delivery was refused before anything was read from it. Answered 400 and never
/// logged with the body; nothing is written.
public enum WebhookRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// No signature header.
    case missingSignature
    /// The header cannot be read (no timestamp, no signature of the expected scheme).
    case malformedSignature
    /// No signature in the header matches the body under the configured secret.
    case signatureMismatch
    /// The signed timestamp is older than the tolerance.
    case stale
    /// Signed, but not the JSON the provider sends.
    case malformedEvent(String)
    /// A store's signed notification or push token that does not verify (why, never the token).
    case unverifiable(String)
    /// The keys a push token is checked with could not be fetched: answered 503, so the
    /// provider delivers again.
    case verifierUnavailable(String)

    public var description: String {
        switch self {
        case .missingSignature: "no signature header"
        case .malformedSignature: "unreadable signature header"
        case .signatureMismatch: "signature does not match"
        case .stale: "signature timestamp outside the tolerance"
        case .malformedEvent(let why): "malformed event: \(why)"
        case .unverifiable(let why): "does not verify: \(why)"
        case .verifierUnavailable(let why): "cannot be verified now: \(why)"
        }
    }
}
