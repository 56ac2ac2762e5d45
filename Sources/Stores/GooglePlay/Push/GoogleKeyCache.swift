import BadgeCore
import Locking
import OutsideHTTP

/// Google's signing keys, fetched from the JWKS URL (a timeout, a size cap) and kept for the
/// `max-age` Google gives. A key id the kept set does not hold fetches the set again, at most
/// once per `refetchFloorSeconds`, so forged key ids cannot make the service hammer Google; a
/// failed fetch is not retried for `failureFloorSeconds`.
public final class GoogleKeyCache: Sendable {
    public let url: String
    let timeoutSeconds: Double
    let maxResponseBytes: Int
    let transport: any OutsideHTTPTransport
    /// The least time between two fetches for an unknown key id, and after a failed fetch (Pub/Sub
    /// retries a 503 within seconds; each retry does not reach Google).
    let refetchFloorSeconds: Int64
    let failureFloorSeconds: Int64
    /// The lifetime of a set served without `max-age`, and the bounds of one served with it.
    static let defaultLifetime: Int64 = 3600
    static let lifetimeRange: ClosedRange<Int64> = 60...86_400

    private struct State {
        var keys: GoogleKeySet?
        var expiresAt: Int64 = 0
        var fetchedAt: Int64?
        var lastFailure: String?
        var fetching = false
        var fetches = 0
    }
    private let state = LockedValueBox(State())

    public static let defaultURL = "https://www.googleapis.com/oauth2/v3/certs"

    public init(url: String = defaultURL, timeoutSeconds: Double, maxResponseBytes: Int, refetchFloorSeconds: Int64 = 60,
                failureFloorSeconds: Int64 = 5, transport: any OutsideHTTPTransport = URLSessionTransport()) {
        self.failureFloorSeconds = failureFloorSeconds
        self.url = url
        self.timeoutSeconds = timeoutSeconds
        self.maxResponseBytes = maxResponseBytes
        self.refetchFloorSeconds = refetchFloorSeconds
        self.transport = transport
    }

    /// How many times the set was fetched (for tests and the log).
    public var fetches: Int { state.withLock { $0.fetches } }

    /// The key `kid` names at `now` (Unix seconds). One fetch runs at a time, outside the lock:
    /// while it runs, a push whose key is kept is answered from the set, and one that needs the
    /// fetch is `unavailable` (Pub/Sub delivers it again) rather than waiting out Google's timeout.
    func key(id kid: String, now: Int64) throws(PushRefusal) -> RSAPublicKey {
        let decided: Result<RSAPublicKey, PushRefusal>? = state.withLock { s in
            let fresh = s.keys != nil && now < s.expiresAt
            if fresh, let key = s.keys?.keys[kid] { return .success(key) }
            if s.fetching { return .failure(.unavailable("Google's keys are being fetched")) }
            if let fetched = s.fetchedAt, now >= fetched {
                if let failure = s.lastFailure, now - fetched < failureFloorSeconds { return .failure(.unavailable(failure)) }
                if fresh, now - fetched < refetchFloorSeconds {
                    return .failure(.refused("the token's key id is not one of Google's current keys"))
                }
            }
            s.fetching = true
            s.fetchedAt = now
            s.fetches += 1
            return nil
        }
        if let decided { return try decided.get() }
        let fetched = fetch()
        let result: Result<RSAPublicKey, PushRefusal> = state.withLock { s in
            s.fetching = false
            switch fetched {
            case .failure(let failure):
                s.lastFailure = failure.why
                return .failure(.unavailable(failure.why))
            case .success(let (set, lifetime)):
                s.lastFailure = nil
                s.keys = set
                s.expiresAt = now + lifetime
                guard let key = set.keys[kid] else {
                    return .failure(.refused("the token's key id is not one of Google's current keys"))
                }
                return .success(key)
            }
        }
        return try result.get()
    }

    private struct FetchFailure: Error { let why: String }

    private func fetch() -> Result<(GoogleKeySet, Int64), FetchFailure> {
        let response: OutsideHTTPAnswer
        do {
            response = try transport.send(method: "GET", url: url, headers: [("Accept", "application/json")], body: nil,
                                          timeoutSeconds: timeoutSeconds, maxResponseBytes: maxResponseBytes)
        } catch {
            switch error {
            case .noAnswer(let why): return .failure(FetchFailure(why: "fetching \(url): \(why)"))
            case .tooLarge(let cap): return .failure(FetchFailure(why: "fetching \(url): the answer is over \(cap) bytes"))
            }
        }
        guard response.status == 200 else { return .failure(FetchFailure(why: "fetching \(url): HTTP \(response.status)")) }
        guard let set = GoogleKeySet(json: response.body), !set.keys.isEmpty else {
            return .failure(FetchFailure(why: "fetching \(url): the answer is not a JWKS with an RSA key"))
        }
        let lifetime = GoogleKeySet.lifetime(cacheControl: response.headers["cache-control"], fallback: Self.defaultLifetime,
                                             range: Self.lifetimeRange)
        return .success((set, lifetime))
    }
}
