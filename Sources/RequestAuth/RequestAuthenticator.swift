import BadgeCore

/// The gateway's single entry point: trusted-front rules first, then the RFC 9421 verifier.
public struct RequestAuthenticator: Sendable {
    /// The RFC 9421 verifier and its policy.
    public let signatures: RequestSignatureVerifier
    /// Trusted-front mode, ``TrustedFront/disabled`` unless `[rpc] front_token` is configured.
    public let trustedFront: TrustedFront

    /// Defaults: ±300 s window, front mode off.
    public init(signatures: RequestSignatureVerifier = RequestSignatureVerifier(), trustedFront: TrustedFront = .disabled) {
        self.signatures = signatures
        self.trustedFront = trustedFront
    }

    /// The header fields that carry credentials: an RFC 9421 signature or a trusted front's
    /// forwarded key (with its bearer token).
    public static let credentialFields = ["Signature", "Signature-Input", "Badge-Signer-Key", "Authorization"]

    /// Whether a request with these fields (`hasField` answers by name, case-insensitively)
    /// carries credentials to check; one without is ``RequestAuthVerdict/unsigned``.
    public static func carriesCredentials(_ hasField: (String) -> Bool) -> Bool {
        credentialFields.contains(where: hasField)
    }

    /// What can be refused without the signature's cryptography: the front rules (a token
    /// comparison) and ``RequestSignatureVerifier/precheck(_:now:bodyReceived:)``. nil when
    /// nothing cheap fails; ``authenticate(_:now:)`` still decides.
    public func precheck(_ request: SignedRequest, now: Timestamp, bodyReceived: Bool) -> RequestAuthFailure? {
        switch trustedFront.evaluate(request) {
        case .decided(.invalid(let failure)): return failure
        case .decided: return nil
        case .notApplicable: return signatures.precheck(request, now: now, bodyReceived: bodyReceived)
        }
    }

    /// What ``prepare(_:now:bodyReceived:)`` established about a request, for
    /// ``authenticate(_:now:)-(Prechecked,_)`` to finish without repeating it.
    public struct Prechecked: Sendable {
        fileprivate enum State: Sendable {
            case decided(RequestAuthVerdict)
            case signature(RequestSignatureVerifier.Prechecked)
        }
        fileprivate let state: State
    }

    /// ``precheck(_:now:bodyReceived:)``, keeping what passed: a gateway that prechecks on its
    /// event loop hands this to the worker that verifies, so the fields are parsed and the body
    /// hashed once per request rather than twice.
    public func prepare(_ request: SignedRequest, now: Timestamp, bodyReceived: Bool) -> Result<Prechecked, RequestAuthFailure> {
        switch trustedFront.evaluate(request) {
        case .decided(.invalid(let failure)): return .failure(failure)
        case .decided(let verdict): return .success(Prechecked(state: .decided(verdict)))
        case .notApplicable: return signatures.prepare(request, now: now, bodyReceived: bodyReceived).map { Prechecked(state: .signature($0)) }
        }
    }

    /// The verdict ``authenticate(_:now:)`` gives the prechecked request at `now`.
    public func authenticate(_ prechecked: Prechecked, now: Timestamp) -> RequestAuthVerdict {
        switch prechecked.state {
        case .decided(let verdict): return verdict
        case .signature(let signature): return signatures.verify(signature, now: now)
        }
    }

    /// The verdict for `request` received at `now`.
    public func authenticate(_ request: SignedRequest, now: Timestamp) -> RequestAuthVerdict {
        switch trustedFront.evaluate(request) {
        case .decided(let verdict): return verdict
        case .notApplicable: return signatures.verify(request, now: now)
        }
    }
}
