import BadgeCore
import JSON

/// A compact JWS split into its three base64url parts, nothing verified yet.
struct CompactJWS: Sendable {
    /// `base64url(header) "." base64url(payload)`, the bytes the signature covers.
    let signingInput: [UInt8]
    /// The decoded header, judged by ``JWSHeader/read(_:)``: a header that is not a JSON object
    /// naming ES256 is a shape this service does not know (internal), not a malformed JWS.
    let headerBytes: [UInt8]
    let payload: JSONObject
    let signature: [UInt8]

    /// Splits `text`; a string that is not three base64url parts, or whose payload is not a
    /// JSON object (and so names no transactionId), can never verify (receipt_invalid).
    static func split(_ text: String) throws(AppStoreRefusal) -> CompactJWS {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .invalid("JWS is not three dot-separated parts") }
        guard let headerBytes = strictBase64URL(parts[0]), let payloadBytes = strictBase64URL(parts[1]),
              let signature = strictBase64URL(parts[2])
        else { throw .invalid("a JWS part is not base64url") }
        guard let payload = try? JSONValue.parse(payloadBytes).objectValue else {
            throw .invalid("JWS payload is not a JSON object")
        }
        return CompactJWS(signingInput: Array(parts[0].utf8) + [0x2E] + Array(parts[1].utf8),
                          headerBytes: headerBytes, payload: payload, signature: signature)
    }

    /// JWS parts are unpadded base64url (RFC 7515 §2); an empty part decodes to nothing and
    /// is refused by whatever reads it.
    private static func strictBase64URL(_ part: Substring) -> [UInt8]? {
        guard !part.isEmpty else { return nil }
        return Base64URL.decode(String(part))
    }
}
