import BadgeCore
import JSON

/// The OAuth 2.0 JWT bearer assertion (RFC 7523) Google's token endpoint exchanges for an
/// access token: RS256, `iss` the service account, `aud` the token URL, one hour of life.
public enum OAuthAssertion {
    /// The one scope the service asks for.
    public static let scope = "https://www.googleapis.com/auth/androidpublisher"
    /// Google refuses assertions living longer than an hour.
    public static let lifetimeSeconds: Int64 = 3600
    /// The assertion's `aud`: Google's token endpoint as Google names it, whatever URL the
    /// request goes to (google-auth does the same, so a proxy or a test fake changes nothing).
    public static let audience = "https://oauth2.googleapis.com/token"
    /// `grant_type` of the token request.
    public static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    /// The signed compact JWT issued at `now` (seconds since the epoch).
    static func make(key: ServiceAccountKey, now: Int64) -> String? {
        var header = JSONObjectBuilder()
        header.add("alg", "RS256")
        header.add("typ", "JWT")
        header.add("kid", key.privateKeyID)
        var claims = JSONObjectBuilder()
        claims.add("iss", key.clientEmail)
        claims.add("scope", scope)
        claims.add("aud", audience)
        claims.add("iat", Int(now))
        claims.add("exp", Int(now + lifetimeSeconds))
        let input = Base64URL.encode(JSONSerializer.serialize(header.json), padded: false) + "."
            + Base64URL.encode(JSONSerializer.serialize(claims.json), padded: false)
        guard let signature = key.signer.sign(Array(input.utf8)) else { return nil }
        return input + "." + Base64URL.encode(signature, padded: false)
    }

    /// The form body of the token request.
    static func tokenRequestBody(assertion: String) -> [UInt8] {
        // The assertion is base64url and dots only, so it needs no percent-encoding.
        Array("grant_type=\(grantType.replacingColons())&assertion=\(assertion)".utf8)
    }
}

private extension String {
    /// `:` percent-encoded, as application/x-www-form-urlencoded requires.
    func replacingColons() -> String { split(separator: ":", omittingEmptySubsequences: false).joined(separator: "%3A") }
}
