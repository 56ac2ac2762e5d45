import BadgeCore
import Crypto

/// What the gateway's RFC 9421 verifier tolerates.
public struct RequestSignaturePolicy: Hashable, Sendable {
    /// How far `created` may lie from now, either way, in seconds (default 300).
    public var freshnessWindowSeconds: Int64
    /// The most components one signature may cover (our signer covers at most 6).
    public var maximumCoveredComponents: Int

    /// Defaults: ±300 s, 32 components.
    public init(freshnessWindowSeconds: Int64 = 300, maximumCoveredComponents: Int = 32) {
        precondition(freshnessWindowSeconds >= 0, "freshness window must not be negative")
        self.freshnessWindowSeconds = freshnessWindowSeconds
        self.maximumCoveredComponents = maximumCoveredComponents
    }
}

/// Verifies the RFC 9421 Ed25519 signature and RFC 9530 `Content-Digest` of a request
/// (docs/protocol.md, Authentication) through an ordered list of small checks; the first failure decides.
public struct RequestSignatureVerifier: Sendable {
    /// What this verifier tolerates.
    public let policy: RequestSignaturePolicy

    /// A verifier with `policy` (default ±300 s).
    public init(policy: RequestSignaturePolicy = RequestSignaturePolicy()) {
        self.policy = policy
    }

    /// The checks in the order they run: message shape, parameters, coverage, time, content, cryptography last.
    package static let checks: [any SignatureCheck] = [
        SignatureParameterTypesCheck(),
        RequiredParametersCheck(),
        AlgorithmCheck(),
        KeyIDCheck(),
        CoveredComponentsCheck(),
        SignatureEncodingCheck(),
        ExpiryCheck(),
        FreshnessCheck(),
        ContentDigestCheck(),
        SignatureValueCheck(),
    ]

    /// `.unsigned` without `Signature`/`Signature-Input`, `.valid` with the verified signer, else `.invalid`.
    public func verify(_ request: SignedRequest, now: Timestamp) -> RequestAuthVerdict {
        switch Self.extract(request, now: now, policy: policy) {
        case .unsigned:
            return .unsigned
        case .failure(let failure):
            return .invalid(failure)
        case .candidate(var evaluation):
            for check in Self.checks {
                if let failure = check.evaluate(&evaluation) { return .invalid(failure) }
            }
            return Self.verdict(evaluation)
        }
    }

    /// The signer of an evaluation every check passed.
    private static func verdict(_ evaluation: SignatureEvaluation) -> RequestAuthVerdict {
        guard let key = evaluation.signerKey, let keyID = evaluation.keyID, let created = evaluation.created else {
            preconditionFailure("the checks establish key, keyid and created before the signature verifies")
        }
        return .valid(VerifiedSigner(publicKey: key, keyID: keyID,
                                     source: .httpSignature(label: evaluation.label, created: created)))
    }

    /// Every check but the signature's cryptography (and, before the body has arrived, the
    /// digest): what a gateway can refuse cheaply, on its event loop, before queueing the full
    /// verification. nil when nothing cheap fails (an unsigned request included).
    public func precheck(_ request: SignedRequest, now: Timestamp, bodyReceived: Bool) -> RequestAuthFailure? {
        if case .failure(let failure) = prepare(request, now: now, bodyReceived: bodyReceived) { return failure }
        return nil
    }

    /// What ``precheck(_:now:bodyReceived:)`` established, kept so that ``verify(_:now:)-(Prechecked,_)``
    /// need not parse the fields and hash the body again.
    public struct Prechecked: Sendable {
        fileprivate enum State: Sendable {
            case unsigned
            case candidate(SignatureEvaluation, digestChecked: Bool)
        }
        fileprivate let state: State
    }

    /// ``precheck(_:now:bodyReceived:)``, keeping what passed for ``verify(_:now:)-(Prechecked,_)``.
    public func prepare(_ request: SignedRequest, now: Timestamp, bodyReceived: Bool) -> Result<Prechecked, RequestAuthFailure> {
        switch Self.extract(request, now: now, policy: policy) {
        case .unsigned: return .success(Prechecked(state: .unsigned))
        case .failure(let failure): return .failure(failure)
        case .candidate(var evaluation):
            for check in Self.checks where check.stage == .message || check.stage == .time
                || (bodyReceived && check.stage == .content) {
                if let failure = check.evaluate(&evaluation) { return .failure(failure) }
            }
            return .success(Prechecked(state: .candidate(evaluation, digestChecked: bodyReceived)))
        }
    }

    /// The verdict ``verify(_:now:)`` gives the prechecked request at `now`. The checks that do
    /// not depend on the time passed already and are not repeated; the time (which moved while
    /// the request queued), the digest if the body had not arrived, and the signature are checked
    /// now, in the pipeline's order, so the first failure is the one a full verification reports.
    public func verify(_ prechecked: Prechecked, now: Timestamp) -> RequestAuthVerdict {
        switch prechecked.state {
        case .unsigned:
            return .unsigned
        case .candidate(var evaluation, let digestChecked):
            evaluation.now = now
            for check in Self.checks where check.stage == .time || check.stage == .cryptography
                || (!digestChecked && check.stage == .content) {
                if let failure = check.evaluate(&evaluation) { return .invalid(failure) }
            }
            return Self.verdict(evaluation)
        }
    }

    package enum Extraction {
        case unsigned
        case failure(RequestAuthFailure)
        case candidate(SignatureEvaluation)
    }

    /// Finds the one signature to verify. Exactly one label is accepted: the label is not
    /// signed, so choosing among several would let whoever adds one influence the choice.
    package static func extract(_ request: SignedRequest, now: Timestamp, policy: RequestSignaturePolicy) -> Extraction {
        let inputField = request.combinedField("signature-input")
        let signatureField = request.combinedField("signature")
        if inputField == nil, signatureField == nil { return .unsigned }
        guard let inputField, let signatureField else { return .failure(.signatureFieldsIncomplete) }
        // Repeated labels or parameters are refused: "last wins" would sign one thing and show another.
        guard let inputs = try? StructuredFieldParser.dictionary(inputField, duplicates: .reject) else {
            return .failure(.malformedSignatureInput)
        }
        guard let signatures = try? StructuredFieldParser.dictionary(signatureField, duplicates: .reject) else {
            return .failure(.malformedSignature)
        }
        if inputs.count > 1 || signatures.count > 1 { return .failure(.multipleSignatures) }
        guard let label = inputs.keys.first, let signatureLabel = signatures.keys.first else {
            // An empty dictionary: the fields are there but say nothing.
            return .failure(inputs.count == 0 ? .malformedSignatureInput : .malformedSignature)
        }
        guard label == signatureLabel else { return .failure(.signatureLabelMismatch) }
        guard case .innerList(let input) = inputs[label] else { return .failure(.malformedSignatureInput) }
        guard case .item(let signature) = signatures[label], case .byteSequence = signature.bareItem else {
            return .failure(.malformedSignature)
        }
        return .candidate(SignatureEvaluation(request: request, now: now, policy: policy, label: label,
                                              input: input, signature: signature))
    }
}

/// The one signature under evaluation and what the checks have established about it so far.
package struct SignatureEvaluation: Sendable {
    package let request: SignedRequest
    package var now: Timestamp
    package let policy: RequestSignaturePolicy
    /// The dictionary label (not signed).
    package let label: String
    /// The Signature-Input member: covered components and signature parameters.
    package let input: SFInnerList
    /// The Signature member.
    package let signature: SFItem

    package var created: Int64?
    package var keyID: String?
    package var signerKey: Ed25519PublicKey?
    package var signatureBytes: [UInt8]?

    package init(request: SignedRequest, now: Timestamp, policy: RequestSignaturePolicy, label: String,
                 input: SFInnerList, signature: SFItem) {
        self.request = request
        self.now = now
        self.policy = policy
        self.label = label
        self.input = input
        self.signature = signature
    }

    package var parameters: SFParameters { input.parameters }
}

/// One step of the pipeline: nil when satisfied (possibly recording what it established), else the failure.
package protocol SignatureCheck: Sendable {
    /// What the check depends on, which decides where a prechecked request repeats it.
    var stage: SignatureCheckStage { get }
    func evaluate(_ evaluation: inout SignatureEvaluation) -> RequestAuthFailure?
}

/// What a check depends on: the message's fields alone (checked once, on the event loop), the
/// time (checked again after queueing), the body (once it has arrived), or the signature's
/// cryptography (on the worker). A property rather than a type test: dynamic casts in the
/// pipeline's loops were a measurable share of a request (issue 17's profile).
package enum SignatureCheckStage: Sendable {
    case message, time, content, cryptography
}

/// RFC 9421 §2.3: `created`/`expires` are integers; `keyid`, `alg`, `nonce`, `tag` are strings.
/// Other parameters are signed along with the rest and ignored.
package struct SignatureParameterTypesCheck: SignatureCheck {
    package init() {}
    package var stage: SignatureCheckStage { .message }
    package func evaluate(_ e: inout SignatureEvaluation) -> RequestAuthFailure? {
        for entry in e.parameters {
            switch (entry.key, entry.value) {
            case ("created", .integer), ("expires", .integer): continue
            case ("keyid", .string), ("alg", .string), ("nonce", .string), ("tag", .string): continue
            case ("created", _), ("expires", _), ("keyid", _), ("alg", _), ("nonce", _), ("tag", _):
                return .malformedSignatureParameter
            default: continue
            }
        }
        return nil
    }
}

/// docs/protocol.md, Authentication: `created` and `keyid` are required.
package struct RequiredParametersCheck: SignatureCheck {
    package init() {}
    package var stage: SignatureCheckStage { .message }
    package func evaluate(_ e: inout SignatureEvaluation) -> RequestAuthFailure? {
        guard case .integer(let created) = e.parameters["created"] else { return .missingCreated }
        guard case .string(let keyID) = e.parameters["keyid"] else { return .missingKeyID }
        e.created = created
        e.keyID = keyID
        return nil
    }
}

/// `alg`, when given, must be `ed25519`; the key type decides the algorithm either way (RFC 9421 §3.2).
package struct AlgorithmCheck: SignatureCheck {
    package init() {}
    package var stage: SignatureCheckStage { .message }
    package func evaluate(_ e: inout SignatureEvaluation) -> RequestAuthFailure? {
        if let alg = e.parameters["alg"], alg != .string("ed25519") { return .unsupportedAlgorithm }
        return nil
    }
}

/// `keyid` is the purchase key exactly as the envelope spells it, and names an Ed25519 key.
package struct KeyIDCheck: SignatureCheck {
    package init() {}
    package var stage: SignatureCheckStage { .message }
    package func evaluate(_ e: inout SignatureEvaluation) -> RequestAuthFailure? {
        guard let keyID = e.keyID, let key = PurchaseKey.parseCanonical(keyID) else { return .keyIDNotPurchaseKey }
        e.signerKey = key
        return nil
    }
}

/// Components are sf-strings, none repeated, and the required ones are covered in their plain
/// form: a parameterised variant (`"content-digest";key="sha-512"`) signs less than the whole.
package struct CoveredComponentsCheck: SignatureCheck {
    package init() {}
    package var stage: SignatureCheckStage { .message }
    package func evaluate(_ e: inout SignatureEvaluation) -> RequestAuthFailure? {
        // Each component costs a field lookup (and maybe a parse) when the base is built; the cap
        // bounds that work for a request nobody has authenticated yet.
        guard e.input.items.count <= e.policy.maximumCoveredComponents else { return .tooManyComponents }
        for (i, component) in e.input.items.enumerated() {
            guard case .string(let name) = component.bareItem, !name.isEmpty, name != "@signature-params" else {
                return .malformedComponent
            }
            if ComponentIdentity.repeats(e.input.items, at: i) { return .duplicateComponent }
        }
        func coveredPlain(_ name: String) -> Bool {
            e.input.items.contains { $0.parameters.isEmpty && $0.bareItem == .string(name) }
        }
        if !coveredPlain("@method") { return .missingRequiredComponent(.method) }
        if !coveredPlain("@path"), !coveredPlain("@target-uri") { return .missingRequiredComponent(.path) }
        if !coveredPlain("content-digest") { return .missingRequiredComponent(.contentDigest) }
        return nil
    }
}

/// An Ed25519 signature is exactly 64 bytes.
package struct SignatureEncodingCheck: SignatureCheck {
    package init() {}
    package var stage: SignatureCheckStage { .message }
    package func evaluate(_ e: inout SignatureEvaluation) -> RequestAuthFailure? {
        guard case .byteSequence(let bytes) = e.signature.bareItem else { return .malformedSignature }
        guard bytes.count == 64 else { return .signatureWrongLength }
        e.signatureBytes = bytes
        return nil
    }
}

/// `expires`, when given, must not have passed (no tolerance: the signer chose it).
package struct ExpiryCheck: SignatureCheck {
    package init() {}
    package var stage: SignatureCheckStage { .time }
    package func evaluate(_ e: inout SignatureEvaluation) -> RequestAuthFailure? {
        if case .integer(let expires) = e.parameters["expires"], e.now.seconds > expires { return .signatureExpired }
        return nil
    }
}

/// `created` within ± the window of now, compared in whole seconds: stale and future both refused.
package struct FreshnessCheck: SignatureCheck {
    package init() {}
    package var stage: SignatureCheckStage { .time }
    package func evaluate(_ e: inout SignatureEvaluation) -> RequestAuthFailure? {
        guard let created = e.created else { return .missingCreated }
        let window = e.policy.freshnessWindowSeconds
        if created < e.now.seconds - window { return .signatureStale }
        if created > e.now.seconds + window { return .signatureCreatedInFuture }
        return nil
    }
}

/// RFC 9530: the digest is checked against the received bytes (the signature covers only the field).
package struct ContentDigestCheck: SignatureCheck {
    package init() {}
    package var stage: SignatureCheckStage { .content }
    package func evaluate(_ e: inout SignatureEvaluation) -> RequestAuthFailure? {
        do throws(RequestAuthFailure) {
            try ContentDigest.check(field: e.request.combinedField("content-digest"), body: e.request.body)
            return nil
        } catch {
            return error
        }
    }
}

/// Rebuilds the signature base (RFC 9421 §2.5) and verifies the Ed25519 signature over it.
package struct SignatureValueCheck: SignatureCheck {
    package init() {}
    package var stage: SignatureCheckStage { .cryptography }
    package func evaluate(_ e: inout SignatureEvaluation) -> RequestAuthFailure? {
        guard let key = e.signerKey, let signature = e.signatureBytes else { return .signatureMismatch }
        let base: [UInt8]
        do throws(SignatureBaseError) {
            base = try SignatureBase.bytes(for: e.request, input: e.input)
        } catch {
            return RequestAuthFailure(error)
        }
        return key.isValidSignature(signature, for: base) ? nil : .signatureMismatch
    }
}

extension RequestAuthFailure {
    init(_ error: SignatureBaseError) {
        switch error {
        case .malformedComponent, .signatureParamsCovered: self = .malformedComponent
        case .duplicateComponent: self = .duplicateComponent
        case .unsupportedComponent: self = .unsupportedComponent
        case .absentField: self = .coveredFieldAbsent
        case .invalidComponentValue: self = .invalidComponentValue
        }
    }
}
