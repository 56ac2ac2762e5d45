import BadgeCore
import JSON

/// Authenticates a Pub/Sub push as Google documents for authenticated push subscriptions: the
/// `Authorization: Bearer` OIDC ID token Pub/Sub signs for the subscription's service account,
/// RS256 under a key of Google's JWKS, `iss` Google's, `aud` the configured audience, `email`
/// the configured push service account with `email_verified`, and `exp`/`iat` around now
/// within `skewSeconds`.
public struct PushAuthenticator: Sendable {
    public let audience: String
    public let serviceAccountEmail: String
    public let keys: GoogleKeyCache
    public let skewSeconds: Int64

    static let issuers: Set<String> = ["accounts.google.com", "https://accounts.google.com"]
    /// Longer than any token Google signs; a larger header is refused unread.
    static let maxTokenLength = 8192

    public init(audience: String, serviceAccountEmail: String, keys: GoogleKeyCache, skewSeconds: Int64 = 60) {
        self.audience = audience
        self.serviceAccountEmail = serviceAccountEmail
        self.keys = keys
        self.skewSeconds = skewSeconds
    }

    /// Checks the `Authorization` header at `now`: `.refused` for anything that does not pass,
    /// `.unavailable` when Google's keys could not be fetched.
    public func authenticate(authorization: String?, now: Timestamp) throws(PushRefusal) {
        guard let authorization else { throw .refused("no Authorization header") }
        let scheme = authorization.prefix(7)
        guard scheme.lowercased() == "bearer " else { throw .refused("Authorization is not a Bearer token") }
        let token = authorization.dropFirst(7).trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, token.utf8.count <= Self.maxTokenLength else { throw .refused("the bearer token is empty or too long") }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(String(parts[0])), let claimBytes = Base64URL.decode(String(parts[1])),
              let signature = Base64URL.decode(String(parts[2])), !signature.isEmpty
        else { throw .refused("the bearer token is not a JWT") }
        guard let header = try? JSONValue.parse(headerBytes).objectValue, let claims = try? JSONValue.parse(claimBytes).objectValue else {
            throw .refused("the bearer token's header or claims are not JSON objects")
        }
        guard header["alg"]?.stringValue == "RS256" else { throw .refused("the token's alg is not RS256") }
        guard let kid = header["kid"]?.stringValue, !kid.isEmpty else { throw .refused("the token names no key id") }
        let key = try keys.key(id: kid, now: now.seconds)
        guard key.isValidRS256(signature: signature, message: Array(parts[0].utf8) + [0x2E] + Array(parts[1].utf8)) else {
            throw .refused("the token's signature does not verify")
        }
        try check(claims, now: now.seconds)
    }

    /// The claims of a token whose signature verified.
    func check(_ claims: JSONObject, now: Int64) throws(PushRefusal) {
        guard let iss = claims["iss"]?.stringValue, Self.issuers.contains(iss) else { throw .refused("the token's iss is not Google's") }
        let audiences: [String] = if let one = claims["aud"]?.stringValue { [one] } else {
            claims["aud"]?.arrayValue?.compactMap(\.stringValue) ?? []
        }
        guard audiences.contains(audience) else { throw .refused("the token's aud is not [google] push_audience") }
        guard claims["email"]?.stringValue == serviceAccountEmail else {
            throw .refused("the token's email is not [google] push_service_account")
        }
        guard claims["email_verified"] == .bool(true) else { throw .refused("the token's email is not verified") }
        guard let exp = claims["exp"]?.numberValue?.exactInt, let iat = claims["iat"]?.numberValue?.exactInt else {
            throw .refused("the token has no integer exp or iat")
        }
        guard now < Int64(exp) + skewSeconds else { throw .refused("the token has expired") }
        guard Int64(iat) <= now + skewSeconds else { throw .refused("the token is issued in the future") }
    }
}
