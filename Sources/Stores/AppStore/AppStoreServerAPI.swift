import BadgeCore
import OutsideHTTP

/// The App Store Server API as this service calls it: Get All Subscription Statuses, production
/// first and then the sandbox, with a fresh ES256 bearer token per call, a timeout and a
/// response cap. Every answer is classified by ``AppStoreVerifier/statusVerdict``.
public struct AppStoreServerAPI: Sendable {
    public static let defaultProductionURL = "https://api.storekit.apple.com"
    public static let defaultSandboxURL = "https://api.storekit-sandbox.apple.com"

    public let key: AppStoreAPIKey
    /// Verifies the signed data in the answers, for the same bundle id as the key's.
    public let verifier: AppStoreVerifier
    public let productionURL: String
    public let sandboxURL: String
    public let timeoutSeconds: Double
    public let maxResponseBytes: Int
    let transport: any OutsideHTTPTransport

    public init(key: AppStoreAPIKey, verifier: AppStoreVerifier, productionURL: String = defaultProductionURL,
                sandboxURL: String = defaultSandboxURL, timeoutSeconds: Double = 10, maxResponseBytes: Int = 1 << 20,
                transport: any OutsideHTTPTransport = URLSessionTransport()) {
        self.key = key
        self.verifier = verifier
        self.productionURL = Self.trimmed(productionURL)
        self.sandboxURL = Self.trimmed(sandboxURL)
        self.timeoutSeconds = timeoutSeconds
        self.maxResponseBytes = maxResponseBytes
        self.transport = transport
    }

    /// The environments asked, in order.
    public enum Environment: String, Sendable {
        case production, sandbox
    }

    /// The status of the subscription `originalTransactionId` names, as of `now`, in the spec's
    /// classes. Production is asked first; Apple's documented fallthrough asks the sandbox when
    /// production does not hold the id (404) or refuses every call because the app was never
    /// released there (401). Should the sandbox not hold it either, production's answer stands.
    public func subscriptionStatus(originalTransactionId: String, now: Timestamp) -> AppStoreStatusVerdict {
        guard AppStoreVerifier.isValidOriginalTransactionId(originalTransactionId) else {
            return .refused(AppStoreRefusal(.internal, "an original transaction id that is not all digits is not sent to Apple"))
        }
        return productionThenSandbox { ask($0, originalTransactionId: originalTransactionId, now: now) }
    }

    /// Apple's documented fallthrough, for every call that looks an id up: production first; the
    /// sandbox when production does not hold the id (404) or refuses every call because the app
    /// was never released there (401); production's answer when the sandbox does not hold it either.
    func productionThenSandbox<Verdict>(_ ask: (Environment) -> (status: Int?, verdict: Verdict)) -> Verdict {
        let production = ask(.production)
        guard production.status == 404 || production.status == 401 else { return production.verdict }
        let sandbox = ask(.sandbox)
        return sandbox.status == 404 ? production.verdict : sandbox.verdict
    }

    /// One call to one environment: the HTTP status when there was an answer, and its verdict.
    func ask(_ environment: Environment, originalTransactionId: String, now: Timestamp) -> (status: Int?, verdict: AppStoreStatusVerdict) {
        let response: OutsideHTTPAnswer
        switch fetch(environment, path: "/inApps/v1/subscriptions/" + originalTransactionId, now: now) {
        case .failure(.refused(let refusal)): return (nil, .refused(refusal))
        case .failure(.unavailable(let reason)): return (nil, .unavailable(reason: reason, retryAfter: nil))
        case .success(let answer): response = answer
        }
        let verdict = verifier.statusVerdict(httpStatus: response.status, retryAfterHeader: response.retryAfterHeader,
                                             body: response.body, originalTransactionId: originalTransactionId, now: now)
        switch verdict {
        case .unavailable(let reason, let retryAfter):
            return (response.status, .unavailable(reason: "\(reason) (\(environment.rawValue))", retryAfter: retryAfter))
        case .refused(let refusal):
            return (response.status, .refused(AppStoreRefusal(refusal.answer, "\(refusal.reason) (\(environment.rawValue))")))
        case .read:
            return (response.status, verdict)
        }
    }

    /// Why a call brought no answer to classify: this service's failure (token, cap) or none at all.
    enum FetchFailure: Error {
        case refused(AppStoreRefusal)
        case unavailable(String)
    }

    /// One authorised GET of `path` in `environment`, with a fresh token, the timeout and the cap.
    func fetch(_ environment: Environment, path: String, now: Timestamp) -> Result<OutsideHTTPAnswer, FetchFailure> {
        let base = environment == .production ? productionURL : sandboxURL
        let token: String
        do { token = try key.token(at: now) } catch {
            return .failure(.refused(AppStoreRefusal(.internal, "App Store Server API token: \(error)")))
        }
        do {
            return .success(try transport.send(method: "GET", url: base + path,
                                               headers: [("Authorization", "Bearer " + token), ("Accept", "application/json")], body: nil,
                                               timeoutSeconds: timeoutSeconds, maxResponseBytes: maxResponseBytes))
        } catch {
            switch error {
            case .noAnswer(let why):
                return .failure(.unavailable("App Store Server API (\(environment.rawValue)): \(why)"))
            case .tooLarge(let limit):
                return .failure(.refused(AppStoreRefusal(.internal, "App Store Server API (\(environment.rawValue)): an answer over \(limit) bytes")))
            }
        }
    }

    private static func trimmed(_ url: String) -> String {
        var base = url
        while base.hasSuffix("/") { base.removeLast() }
        return base
    }
}
