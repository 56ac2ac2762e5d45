import BadgeCore
import Crypto

/// Trusted-front mode (docs/protocol.md, Authentication; off by default): a SimpleX chat bridge that verified the
/// agent's signature forwards the signer in `Badge-Signer-Key`, authenticated by
/// `Authorization: Bearer <[rpc] front_token>`.
///
/// Rules, in order:
/// - mode off: `Badge-Signer-Key` is refused (401), so a front pointed at a server that does not
///   trust it fails loudly instead of its requests passing as unsigned; `Authorization` is ignored.
/// - mode on: an `Authorization` field must be exactly one `Bearer` of the configured token, with or
///   without a signer key (a front with a wrong token is misconfigured, not anonymous);
///   `Badge-Signer-Key` needs that token and exactly one canonical purchase key, and may not be
///   combined with an RFC 9421 signature. A valid token without a signer key is not an identity:
///   the request goes on to signature verification (so unsigned if it carries none).
public struct TrustedFront: Sendable {
    /// The header carrying the forwarded signer key.
    public static let signerKeyField = "Badge-Signer-Key"

    /// Why a front token cannot be configured.
    public enum ConfigurationError: Error, Hashable, Sendable {
        /// Shorter than ``minimumTokenLength`` characters.
        case tokenTooShort
        /// Not an RFC 6750 b64token (`A–Z a–z 0–9 - . _ ~ + /`, then `=` padding).
        case tokenNotB64Token
    }

    /// A guessable token would make every purchase key forgeable, so short ones are refused.
    public static let minimumTokenLength = 32

    // SHA-256 of the token: comparing fixed-length digests keeps the comparison constant-time
    // in the token length too, and the token itself is not kept in memory.
    private let tokenDigest: [UInt8]?

    private init(tokenDigest: [UInt8]?) { self.tokenDigest = tokenDigest }

    /// Mode off (the default).
    public static let disabled = TrustedFront(tokenDigest: nil)

    /// Mode on with the configured `front_token`.
    public static func enabled(token: String) throws(ConfigurationError) -> TrustedFront {
        guard token.utf8.count >= minimumTokenLength else { throw .tokenTooShort }
        guard isB64Token(token) else { throw .tokenNotB64Token }
        return TrustedFront(tokenDigest: SHA256.hash(Array(token.utf8)))
    }

    /// Whether front mode is on.
    public var isEnabled: Bool { tokenDigest != nil }

    /// What the front rules say about a request.
    package enum Outcome: Hashable, Sendable {
        /// The front rules do not decide; verify the RFC 9421 signature (or treat as unsigned).
        case notApplicable
        /// The front rules decide: a forwarded signer or a refusal.
        case decided(RequestAuthVerdict)
    }

    /// Applies the rules above to `request`.
    package func evaluate(_ request: SignedRequest) -> Outcome {
        let signerKeys = request.fieldLines(Self.signerKeyField)
        guard let tokenDigest else {
            return signerKeys.isEmpty ? .notApplicable : .decided(.invalid(.signerKeyWithoutTrustedFront))
        }
        let authorizations = request.fieldLines("authorization")
        var tokenVerified = false
        if !authorizations.isEmpty {
            guard authorizations.count == 1, let token = Self.bearerToken(authorizations[0]),
                  constantTimeEquals(SHA256.hash(Array(token.utf8)), tokenDigest)
            else { return .decided(.invalid(.frontTokenMismatch)) }
            tokenVerified = true
        }
        if signerKeys.isEmpty { return .notApplicable }
        guard tokenVerified else { return .decided(.invalid(.frontTokenMissing)) }
        let keyText = trimOWS(signerKeys[0])
        guard signerKeys.count == 1, let key = PurchaseKey.parseCanonical(keyText) else {
            return .decided(.invalid(.malformedSignerKey))
        }
        if request.combinedField("signature") != nil || request.combinedField("signature-input") != nil {
            return .decided(.invalid(.ambiguousAuthentication))
        }
        return .decided(.valid(VerifiedSigner(publicKey: key, keyID: keyText, source: .trustedFront)))
    }

    /// The token of `Bearer <token>` (scheme case-insensitive, RFC 9110 §11.1); nil for anything else.
    static func bearerToken(_ field: String) -> String? {
        let value = trimOWS(field)
        let scheme = "bearer "
        guard value.utf8.count > scheme.utf8.count,
              asciiLowercased(String(decoding: value.utf8.prefix(scheme.utf8.count), as: UTF8.self)) == scheme
        else { return nil }
        let token = trimOWS(String(decoding: value.utf8.dropFirst(scheme.utf8.count), as: UTF8.self))
        return isB64Token(token) ? token : nil
    }

    // RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
    static func isB64Token(_ token: String) -> Bool {
        let bytes = Array(token.utf8)
        var i = 0
        while i < bytes.count, isB64Char(bytes[i]) { i += 1 }
        guard i > 0 else { return false }
        while i < bytes.count, bytes[i] == UInt8(ascii: "=") { i += 1 }
        return i == bytes.count
    }

    private static func isB64Char(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-._~+/".utf8.contains(c)
        }
    }
}
