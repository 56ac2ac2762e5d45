import JSON
import Locking
import OutsideHTTP

/// An access token from Google's token endpoint and when it stops being used.
public struct AccessToken: Sendable, Equatable {
    public let value: String
    /// Seconds since the epoch after which the token is fetched anew (its expiry less the margin).
    public let refreshAfter: Int64

    /// Fetched anew this long before Google's stated expiry, so no call carries a token that
    /// expires on the way.
    public static let expiryMarginSeconds: Int64 = 300

    public init(value: String, refreshAfter: Int64) {
        self.value = value
        self.refreshAfter = refreshAfter
    }

    /// The token endpoint's answer mapped to a token or to the spec's class, received at `now`:
    /// 408, 429 and 5xx are Google not answering; any other refusal, and an answer that cannot be
    /// read, is this service's own problem (a wrong key, clock or token URL).
    public static func fromTokenEndpoint(_ response: OutsideHTTPAnswer, now: Int64) throws(PlayRefusal) -> AccessToken {
        switch response.status {
        case 200:
            break
        case 408, 429, 500...599:
            throw .unavailable("token endpoint answered \(response.status)")
        default:
            throw .internal("token endpoint refused the service account: \(response.status)\(oauthError(response.body))")
        }
        guard let value = try? JSONValue.parse(response.body), case .object(let object) = value else {
            throw .internal("token endpoint answer is not a JSON object")
        }
        guard let token = object["access_token"]?.stringValue, !token.isEmpty else {
            throw .internal("token endpoint answer has no access_token")
        }
        if let type = object["token_type"]?.stringValue, type.lowercased() != "bearer" {
            throw .internal("token endpoint answer has token_type \(type), not Bearer")
        }
        guard let lifetime = object["expires_in"]?.numberValue?.exactInt, lifetime > 0 else {
            throw .internal("token endpoint answer has no positive integer expires_in")
        }
        // A lifetime under twice the margin keeps half of it: still reused, still renewed early.
        return AccessToken(value: token, refreshAfter: now + Int64(lifetime) - min(expiryMarginSeconds, Int64(lifetime) / 2))
    }

    /// `error` of an OAuth error answer, for the log (its description may quote our request).
    private static func oauthError(_ body: [UInt8]) -> String {
        guard let value = try? JSONValue.parse(body), let error = value["error"]?.stringValue,
              error.utf8.count <= 64, error.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7f }) else { return "" }
        return " \(error)"
    }
}

/// Holds the current access token, shared by every Play call: fetched when missing or due,
/// dropped when the API answers 401.
final class AccessTokenCache: Sendable {
    private let box = LockedValueBox<AccessToken?>(nil)

    /// The cached token if it is still good at `now`.
    func current(now: Int64) -> AccessToken? {
        box.withLock { token in
            guard let t = token, now < t.refreshAfter else { return nil }
            return t
        }
    }

    func store(_ token: AccessToken) { box.withLock { $0 = token } }

    /// Drops `token` unless another call has already replaced it.
    func discard(_ token: AccessToken) {
        box.withLock { if $0 == token { $0 = nil } }
    }
}
