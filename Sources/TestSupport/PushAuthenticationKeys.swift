import Foundation
import JSON

/// Pub/Sub push OIDC material made by google-auth (Tests/Peers/google_auth_peer.py): an RSA key
/// with its JWK Set, and ID tokens signed with it.
public enum PushAuthenticationKeys {
    /// A fresh RSA key: its private PEM and its JWK Set under `kid`.
    public static func make(kid: String) throws -> (pem: String, jwks: String) {
        let made = try JSONValue.parse(Array(try PeerPython.run(script: "google_auth_peer.py", arguments: ["keygen"])))
        guard let accountText = made["key"]?.stringValue, let pem = try JSONValue.parse(Array(accountText.utf8))["private_key"]?.stringValue else {
            throw FixtureShapeError("google_auth_peer.py keygen gave no private key")
        }
        let jwks = String(decoding: try PeerPython.run(script: "google_auth_peer.py", arguments: ["jwks", kid], input: Data(pem.utf8)),
                          as: UTF8.self)
        return (pem, jwks)
    }

    /// A token google-auth signs with `pem` under `kid`, valid at `now` for `audience` and
    /// `email`; `changes` replace claims (null removes one).
    public static func token(_ pem: String, kid: String, audience: String, email: String, now: Int64,
                             _ changes: JSONObject = [:]) throws -> String {
        var claims: JSONObject = ["iss": "https://accounts.google.com", "aud": .string(audience), "email": .string(email),
                                  "email_verified": true, "sub": "1234567890", "azp": "1234567890",
                                  "iat": .number(JSONNumber(Int(now) - 10)), "exp": .number(JSONNumber(Int(now) + 3590))]
        for member in changes.members { claims[member.key] = member.value == .null ? nil : member.value }
        let request: JSONValue = ["private_pem": .string(pem), "claims": .object(claims)]
        return String(decoding: try PeerPython.run(script: "google_auth_peer.py", arguments: ["idtoken", kid],
                                                   input: Data(request.serialized())), as: UTF8.self)
    }
}
