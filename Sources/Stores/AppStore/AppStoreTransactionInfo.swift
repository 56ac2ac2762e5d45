import BadgeCore
import JSON

/// The verdict on one Get Transaction Info read (`GET /inApps/v1/transactions/{transactionId}`).
public enum AppStoreTransactionInfoVerdict: Sendable, Equatable {
    /// Apple's signed transaction, its signature, bundle id and id verified; `environment` is
    /// the one that answered. What it may be credited for is the caller's judgement.
    case read(AppStoreTransaction, environment: AppStoreServerAPI.Environment)
    case refused(AppStoreRefusal)
    /// provider_unavailable: no answer, or nothing certain; `retryAfter` in seconds when Apple said.
    case unavailable(reason: String, retryAfter: Int64?)
}

extension AppStoreServerAPI {
    /// The authoritative record of `transactionId` (Get Transaction Info). Production first; the
    /// sandbox when production does not hold the id (404) or refuses every call because the app
    /// was never released there (401). Should the sandbox not hold it either, production's
    /// answer stands.
    public func transactionInfo(transactionId: String, now: Timestamp) -> AppStoreTransactionInfoVerdict {
        guard AppStoreVerifier.isValidOriginalTransactionId(transactionId) else {
            return .refused(AppStoreRefusal(.receiptInvalid, "a transaction id that is not all digits is not sent to Apple"))
        }
        return productionThenSandbox { askTransaction($0, transactionId: transactionId, now: now) }
    }

    func askTransaction(_ environment: Environment, transactionId: String,
                        now: Timestamp) -> (status: Int?, verdict: AppStoreTransactionInfoVerdict) {
        switch fetch(environment, path: "/inApps/v1/transactions/" + transactionId, now: now) {
        case .failure(.refused(let refusal)): return (nil, .refused(refusal))
        case .failure(.unavailable(let reason)): return (nil, .unavailable(reason: reason, retryAfter: nil))
        case .success(let response):
            let verdict = verifier.transactionInfoVerdict(httpStatus: response.status, retryAfterHeader: response.retryAfterHeader,
                                                          body: response.body, transactionId: transactionId, now: now)
            switch verdict {
            case .read(let transaction, _): return (response.status, .read(transaction, environment: environment))
            case .refused(let refusal):
                return (response.status, .refused(AppStoreRefusal(refusal.answer, "\(refusal.reason) (\(environment.rawValue))")))
            case .unavailable(let reason, let retryAfter):
                return (response.status, .unavailable(reason: "\(reason) (\(environment.rawValue))", retryAfter: retryAfter))
            }
        }
    }
}

extension AppStoreVerifier {
    /// Classifies one answer of Get Transaction Info. 200: the signed transaction verified
    /// against the roots, for this bundle id and this transaction id (every failure internal:
    /// Apple answered it, no client presented it). 401 and 403: this service's key (internal).
    /// Anything else, a 404 included, unavailable: a transaction can be missing for a while right
    /// after its purchase, and receipt_invalid is for certainties only.
    public func transactionInfoVerdict(httpStatus: Int, retryAfterHeader: String?, body: [UInt8], transactionId: String,
                                       now: Timestamp) -> AppStoreTransactionInfoVerdict {
        switch httpStatus {
        case 200:
            do throws(AppStoreRefusal) {
                guard let document = try? JSONValue.parse(body).objectValue else {
                    throw .internal("the transaction info answer is not a JSON object")
                }
                let jws = try CompactJWS.split(try PayloadFields(object: document, what: "transaction info").string("signedTransactionInfo"))
                try verifySignature(jws, what: "transaction")
                let transaction = try AppStoreTransaction.decode(jws.payload)
                guard transaction.bundleId == bundleId else { throw .internal("the transaction names another app's bundleId") }
                guard transaction.transactionId == transactionId else { throw .internal("Apple's signed transaction names another transaction") }
                return .read(transaction, environment: transaction.environment == .sandbox ? .sandbox : .production)
            } catch {
                return .refused(error.answer == .internal ? error : AppStoreRefusal(.internal, "signed transaction info: \(error.reason)"))
            }
        case 401, 403:
            return .refused(.internal("the App Store Server API refused this service's token or key (\(httpStatus))"))
        default:
            return .unavailable(reason: "the App Store Server API answered \(httpStatus)",
                                retryAfter: AppStoreRetryAfter.seconds(retryAfterHeader, now: now))
        }
    }
}
