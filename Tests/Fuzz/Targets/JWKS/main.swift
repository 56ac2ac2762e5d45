@testable import GooglePlay
import BadgeCore
import FuzzSupport
import OutsideHTTP

/// Google's JWKS and the push token checked against it: `PushAuthenticator.authenticate` with
/// a key cache whose fetch answers the input's document (`GoogleKeySet`: JSON, base64url `n`
/// and `e`, each RSA key built as DER and handed to OpenSSL, the `Cache-Control` lifetime),
/// then the bearer token's parts, header, key id and RS256 signature.
///
/// The input's first line is the `Authorization` value, the second `Cache-Control`, the rest
/// the JWKS document. Beyond not crashing: every key kept is RSA of at least 2048 bits
/// (`RSAPublicKey` refuses others), no key verifies a forged signature, and a lifetime stays
/// within its range.
struct DocumentTransport: OutsideHTTPTransport {
    let answer: OutsideHTTPAnswer
    func send(method: String, url: String, headers: [(String, String)], body: [UInt8]?,
              timeoutSeconds: Double, maxResponseBytes: Int) throws(OutsideHTTPFailure) -> OutsideHTTPAnswer { answer }
}

fuzzMain { bytes in
    let lines = Array(bytes).split(separator: 0x0A, maxSplits: 2, omittingEmptySubsequences: false)
    let authorization = lossyText(lines[0])
    let cacheControl = lines.count > 1 ? lossyText(lines[1]) : ""
    let document = lines.count > 2 ? Array(lines[2]) : []

    let lifetime = GoogleKeySet.lifetime(cacheControl: cacheControl, fallback: 3600, range: 60...86_400)
    guard (60...86_400).contains(lifetime) else { fatalError("lifetime \(lifetime) outside its range") }
    if let set = GoogleKeySet(json: document) {
        for (_, key) in set.keys where key.isValidRS256(signature: Array(repeating: 0x5A, count: 256), message: document) {
            fatalError("a forged RS256 signature verified")
        }
    }
    let keys = GoogleKeyCache(timeoutSeconds: 1, maxResponseBytes: 1 << 20,
                              transport: DocumentTransport(answer: OutsideHTTPAnswer(status: 200, headers: ["cache-control": cacheControl],
                                                                                      body: document)))
    let authenticator = PushAuthenticator(audience: "https://badges.example.net/webhooks/google",
                                          serviceAccountEmail: "push@example.iam.gserviceaccount.com", keys: keys)
    _ = try? authenticator.authenticate(authorization: authorization, now: Timestamp(seconds: 1_767_225_600))
}
