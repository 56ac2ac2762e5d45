import BadgeCore
import JSON

/// The JWS header Apple signs with: `alg` ES256 and `x5c`, the DER certificates leaf,
/// intermediate, root in standard base64 (RFC 7515 §4.1.6).
struct JWSHeader: Sendable {
    let leafDER: [UInt8]
    let intermediateDER: [UInt8]

    /// A header that names another algorithm or carries no x5c of exactly three strings is a
    /// shape this service does not know (internal); an entry that is not base64 can never
    /// verify (receipt_invalid). The third entry is ignored: the root comes from configuration.
    static func read(_ header: JSONObject) throws(AppStoreRefusal) -> JWSHeader {
        guard header["alg"]?.stringValue == "ES256" else { throw .internal("JWS header alg is not ES256") }
        guard let x5c = header["x5c"]?.arrayValue else { throw .internal("JWS header has no x5c array") }
        guard x5c.count == 3 else { throw .internal("JWS x5c holds \(x5c.count) certificates, not 3") }
        let texts = x5c.compactMap(\.stringValue)
        guard texts.count == 3 else { throw .internal("a JWS x5c entry is not a string") }
        guard let leaf = decode(texts[0]), let intermediate = decode(texts[1]) else {
            throw .invalid("an x5c certificate is not base64")
        }
        return JWSHeader(leafDER: leaf, intermediateDER: intermediate)
    }

    private static func decode(_ text: String) -> [UInt8]? {
        guard !text.isEmpty else { return nil }
        return Base64URL.decodeStandard(text)
    }
}
