import BadgeCore
import JSON

/// Google's OAuth 2.0 signing keys as its JWKS document lists them (`{"keys": [{kid, kty, n, e, …}]}`):
/// the RSA keys by key id. A key that is not RSA, or that OpenSSL refuses, is left out.
struct GoogleKeySet: Sendable {
    let keys: [String: RSAPublicKey]

    /// Nil for a document that is not a JWKS (not JSON, no `keys` array).
    init?(json bytes: [UInt8]) {
        guard let document = try? JSONValue.parse(bytes), let entries = document["keys"]?.arrayValue else { return nil }
        var keys: [String: RSAPublicKey] = [:]
        for entry in entries {
            guard entry["kty"]?.stringValue == "RSA", let kid = entry["kid"]?.stringValue,
                  let n = entry["n"]?.stringValue.flatMap(Base64URL.decode),
                  let e = entry["e"]?.stringValue.flatMap(Base64URL.decode),
                  let key = RSAPublicKey(modulus: n, exponent: e)
            else { continue }
            if let alg = entry["alg"]?.stringValue, alg != "RS256" { continue }
            keys[kid] = key
        }
        self.keys = keys
    }

    /// The lifetime `Cache-Control: max-age` gives, clamped to `range`; `fallback` without one.
    static func lifetime(cacheControl: String?, fallback: Int64, range: ClosedRange<Int64>) -> Int64 {
        guard let cacheControl else { return fallback }
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0].lowercased() == "max-age", let seconds = Int64(parts[1]) {
                return min(max(seconds, range.lowerBound), range.upperBound)
            }
        }
        return fallback
    }
}
