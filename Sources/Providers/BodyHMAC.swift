import BadgeCore
import Crypto

/// A webhook signature of the form `<scheme><hex HMAC-SHA256 of the raw body>`, keyed by the
/// secret the provider and this service share (BTCPay's `BTCPay-Sig: sha256=…`), checked in
/// constant time.
public struct BodyHMAC: Sendable {
    let secret: [UInt8]
    /// What precedes the hex digest (`sha256=`).
    let scheme: String

    public init(secret: String, scheme: String = "sha256=") {
        self.secret = Array(secret.utf8)
        self.scheme = scheme
    }

    /// Throws unless `header` is present, of the scheme, and the HMAC of `body`.
    public func verify(_ body: [UInt8], header: String?) throws(WebhookRefusal) {
        guard let header else { throw .missingSignature }
        guard header.hasPrefix(scheme), let given = Hex.decode(String(header.dropFirst(scheme.count))) else {
            throw .malformedSignature
        }
        guard constantTimeEquals(HMACSHA256.authenticate(body, key: secret), given) else { throw .signatureMismatch }
    }

    /// The header value for `body` (the signing side: a provider, or a test).
    public func header(for body: [UInt8]) -> String { scheme + Hex.encode(HMACSHA256.authenticate(body, key: secret)) }
}
