/// Why a request's authentication was refused. Each case names one thing the client (or the
/// operator, for trusted-front cases) can fix; ``reason`` is safe to log.
public enum RequestAuthFailure: Error, Hashable, Sendable {
    // Signature fields
    /// Only one of `Signature` and `Signature-Input` is present.
    case signatureFieldsIncomplete
    /// `Signature-Input` is not an RFC 8941 dictionary of inner lists, or repeats a label or parameter.
    case malformedSignatureInput
    /// `Signature` is not an RFC 8941 dictionary of byte sequences, or repeats a label.
    case malformedSignature
    /// More than one signature label: refused so there is no choice of which one counts.
    case multipleSignatures
    /// `Signature` and `Signature-Input` carry different labels.
    case signatureLabelMismatch

    // Signature parameters
    /// `created`/`expires` not an integer, or `keyid`/`alg`/`nonce`/`tag` not a string.
    case malformedSignatureParameter
    /// No `created` parameter.
    case missingCreated
    /// No `keyid` parameter.
    case missingKeyID
    /// `keyid` is not a purchase key (padded base64url of a 44-byte Ed25519 SPKI).
    case keyIDNotPurchaseKey
    /// `alg` is present and is not `ed25519`.
    case unsupportedAlgorithm
    /// `expires` has passed.
    case signatureExpired
    /// `created` is older than the freshness window.
    case signatureStale
    /// `created` is further in the future than the freshness window.
    case signatureCreatedInFuture

    // Covered components
    /// A component the service requires is not covered (in its plain form, without parameters).
    case missingRequiredComponent(RequiredComponent)
    /// The same component identifier is covered twice.
    case duplicateComponent
    /// More components than ``RequestSignaturePolicy/maximumCoveredComponents``.
    case tooManyComponents
    /// A covered component is not an sf-string, names a field in upper case, or is `@signature-params`.
    case malformedComponent
    /// A covered component or component parameter this service does not implement.
    case unsupportedComponent
    /// A covered field is not in the request.
    case coveredFieldAbsent
    /// A covered value cannot appear in a signature base (controls, non-ASCII).
    case invalidComponentValue

    // Content-Digest
    /// No `Content-Digest` field.
    case contentDigestMissing
    /// `Content-Digest` is not a dictionary, repeats an algorithm, or holds a digest of the wrong shape.
    case contentDigestMalformed
    /// `Content-Digest` has no `sha-256` member.
    case contentDigestWithoutSHA256
    /// A digest does not match the received body.
    case contentDigestMismatch

    // The signature itself
    /// The signature is not 64 bytes.
    case signatureWrongLength
    /// The Ed25519 signature does not verify over the signature base with the `keyid` key.
    case signatureMismatch

    // Trusted front
    /// `Badge-Signer-Key` arrived but trusted-front mode is off: a misconfigured deployment.
    case signerKeyWithoutTrustedFront
    /// `Badge-Signer-Key` arrived without `Authorization: Bearer`.
    case frontTokenMissing
    /// `Authorization` is not `Bearer <the configured front token>`.
    case frontTokenMismatch
    /// `Badge-Signer-Key` is not exactly one purchase key.
    case malformedSignerKey
    /// A front-forwarded signer key and an RFC 9421 signature in one request.
    case ambiguousAuthentication

    /// The components every signature must cover (docs/protocol.md, Authentication).
    public enum RequiredComponent: String, Hashable, Sendable {
        case method = "@method"
        /// `"@path"` or `"@target-uri"`.
        case path = "@path"
        case contentDigest = "content-digest"
    }

    /// A fixed sentence for logs: never key material, tokens, header values or body bytes.
    public var reason: String {
        switch self {
        case .signatureFieldsIncomplete: "Signature and Signature-Input must both be present"
        case .malformedSignatureInput: "Signature-Input is not a valid structured dictionary of inner lists"
        case .malformedSignature: "Signature is not a valid structured dictionary of byte sequences"
        case .multipleSignatures: "more than one signature label; exactly one is accepted"
        case .signatureLabelMismatch: "Signature and Signature-Input labels differ"
        case .malformedSignatureParameter: "a signature parameter has the wrong type"
        case .missingCreated: "signature parameter created is missing"
        case .missingKeyID: "signature parameter keyid is missing"
        case .keyIDNotPurchaseKey: "keyid is not a purchase key (padded base64url Ed25519 SPKI)"
        case .unsupportedAlgorithm: "signature parameter alg is not ed25519"
        case .signatureExpired: "signature has expired"
        case .signatureStale: "signature created is older than the freshness window"
        case .signatureCreatedInFuture: "signature created is in the future beyond the freshness window"
        case .missingRequiredComponent(let c):
            c == .path ? "signature does not cover \"@path\" or \"@target-uri\"" : "signature does not cover \"\(c.rawValue)\""
        case .duplicateComponent: "a component is covered more than once"
        case .tooManyComponents: "the signature covers more components than allowed"
        case .malformedComponent: "a covered component identifier is malformed"
        case .unsupportedComponent: "a covered component or component parameter is not supported"
        case .coveredFieldAbsent: "a covered header field is absent from the request"
        case .invalidComponentValue: "a covered value contains characters not allowed in a signature base"
        case .contentDigestMissing: "Content-Digest is missing"
        case .contentDigestMalformed: "Content-Digest is malformed"
        case .contentDigestWithoutSHA256: "Content-Digest has no sha-256 digest"
        case .contentDigestMismatch: "Content-Digest does not match the body"
        case .signatureWrongLength: "signature is not 64 bytes"
        case .signatureMismatch: "signature does not verify with the keyid key"
        case .signerKeyWithoutTrustedFront: "Badge-Signer-Key received but trusted front mode is off"
        case .frontTokenMissing: "Badge-Signer-Key received without a bearer token"
        case .frontTokenMismatch: "bearer token is not the trusted front token"
        case .malformedSignerKey: "Badge-Signer-Key is not exactly one purchase key"
        case .ambiguousAuthentication: "both Badge-Signer-Key and an HTTP message signature received"
        }
    }
}
