import BadgeCore

/// The gateway's single entry point: trusted-front rules first, then the RFC 9421 verifier.
public struct RequestAuthenticator: Sendable {
    public let signatures: RequestSignatureVerifier
    public let trustedFront: TrustedFront

    public init(signatures: RequestSignatureVerifier = RequestSignatureVerifier(), trustedFront: TrustedFront = .disabled) {
        self.signatures = signatures
        self.trustedFront = trustedFront
    }

    /// The verdict for `request` received at `now`.
    public func authenticate(_ request: SignedRequest, now: Timestamp) -> RequestAuthVerdict {
        switch trustedFront.evaluate(request) {
        case .decided(let verdict): return verdict
        case .notApplicable: return signatures.verify(request, now: now)
        }
    }
}
