import BadgeCore
import JSON

/// The JWS header Apple signs with: `alg` ES256 and `x5c`, the DER certificates leaf,
/// intermediate, root in standard base64 (RFC 7515 §4.1.6), every one of them read.
struct JWSHeader: Sendable {
    let leaf: X509Certificate
    let intermediate: X509Certificate
    /// Decoded like the others, so evidence is judged whole, and never trusted: the root that
    /// anchors the chain comes from configuration.
    let root: X509Certificate

    /// The positions of `x5c`, named for the reasons.
    static let roles = ["leaf", "intermediate", "root"]

    /// The spec's App Store lists, in this order: a header that is not a JSON object naming
    /// ES256, or carries no x5c of exactly three certificates (strings), is a shape this service
    /// does not know (internal); then any entry that is not base64 can never verify
    /// (receipt_invalid), whichever it is; then any entry that does not decode as one DER
    /// certificate is a shape this service does not know (internal).
    static func read(_ bytes: [UInt8]) throws(AppStoreRefusal) -> JWSHeader {
        guard let header = try? JSONValue.parse(bytes).objectValue else { throw .internal("JWS header is not a JSON object") }
        guard header["alg"]?.stringValue == "ES256" else { throw .internal("JWS header alg is not ES256") }
        guard let x5c = header["x5c"]?.arrayValue else { throw .internal("JWS header has no x5c array") }
        guard x5c.count == 3 else { throw .internal("JWS x5c holds \(x5c.count) certificates, not 3") }
        let texts = x5c.compactMap(\.stringValue)
        guard texts.count == 3 else { throw .internal("a JWS x5c entry is not a string") }
        var ders: [[UInt8]] = []
        for (text, role) in zip(texts, roles) {
            // Standard base64, padded or not; an empty entry is the base64 of nothing, which
            // does not decode as a certificate below.
            guard let der = Base64URL.decodeStandard(text) else { throw .invalid("the x5c \(role) is not base64") }
            ders.append(der)
        }
        var certificates: [X509Certificate] = []
        for (der, role) in zip(ders, roles) {
            guard let certificate = X509Certificate(der: der) else { throw .internal("the x5c \(role) is not a DER certificate") }
            certificates.append(certificate)
        }
        return JWSHeader(leaf: certificates[0], intermediate: certificates[1], root: certificates[2])
    }
}
