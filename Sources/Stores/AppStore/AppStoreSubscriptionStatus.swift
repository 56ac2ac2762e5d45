import BadgeCore
import JSON

/// What Get All Subscription Statuses said about one subscription, verified.
public struct AppStoreSubscriptionRead: Sendable, Equatable {
    /// Apple's status values (stores.md A7).
    public enum Status: Int, Sendable {
        case active = 1
        case expired = 2
        case billingRetry = 3
        case gracePeriod = 4
        case revoked = 5
    }

    public let status: Status
    /// The latest transaction of the subscription: its latest charge.
    public let transaction: AppStoreTransaction
    public let renewal: AppStoreRenewalInfo
}

/// The verdict on one status read, in the spec's classes for a subscription's status.
public enum AppStoreStatusVerdict: Sendable, Equatable {
    case read(AppStoreSubscriptionRead)
    case refused(AppStoreRefusal)
    /// provider_unavailable: the store did not answer, or answered nothing certain;
    /// `retryAfter` in seconds when Apple said when to come back.
    case unavailable(reason: String, retryAfter: Int64?)
}

extension AppStoreVerifier {
    /// An original transaction id this service will put in a URL path: digits only (internal otherwise).
    public static func isValidOriginalTransactionId(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 32 && id.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }

    /// Classifies one answer of `GET /inApps/v1/subscriptions/{originalTransactionId}` as the
    /// spec's App Store list does for a subscription's status. `retryAfterHeader` is Apple's
    /// `Retry-After`, a UNIX time in milliseconds; `now` turns it into seconds.
    public func statusVerdict(httpStatus: Int, retryAfterHeader: String?, body: [UInt8], originalTransactionId: String,
                              now: Timestamp) -> AppStoreStatusVerdict {
        switch httpStatus {
        case 200:
            do throws(AppStoreRefusal) {
                guard let read = try subscriptionRead(body, originalTransactionId: originalTransactionId) else {
                    // The id stays out of the reason: the log never names what could tie two purchases together.
                    return .unavailable(reason: "the status names no such subscription", retryAfter: nil)
                }
                return .read(read)
            } catch {
                return .refused(error)
            }
        case 401, 403:
            return .refused(.internal("the App Store Server API refused this service's token or key (\(httpStatus))"))
        default:
            return .unavailable(reason: "the App Store Server API answered \(httpStatus)",
                                retryAfter: AppStoreRetryAfter.seconds(retryAfterHeader, now: now))
        }
    }

    /// The entry for `originalTransactionId`, verified; nil when the answer names no such subscription.
    func subscriptionRead(_ body: [UInt8], originalTransactionId: String) throws(AppStoreRefusal) -> AppStoreSubscriptionRead? {
        guard let document = try? JSONValue.parse(body).objectValue else { throw .internal("the status answer is not a JSON object") }
        let top = PayloadFields(object: document, what: "status answer")
        let environment = try top.string("environment")
        guard let env = AppStoreTransaction.Environment(rawValue: environment) else {
            throw .internal("status answer environment '\(environment)' is not Production or Sandbox")
        }
        guard try top.string("bundleId") == bundleId else { throw .internal("the status answer names another app's bundleId") }
        guard let groups = document["data"]?.arrayValue else { throw .internal("the status answer has no data list") }
        var entry: JSONObject?
        for group in groups {
            for item in group["lastTransactions"]?.arrayValue ?? [] {
                // An unreadable entry for another subscription is ignored.
                if item["originalTransactionId"]?.stringValue == originalTransactionId { entry = item.objectValue }
            }
        }
        guard let entry else { return nil }
        let fields = PayloadFields(object: entry, what: "status entry")
        let statusValue = try fields.integer("status")
        guard let status = AppStoreSubscriptionRead.Status(rawValue: statusValue) else {
            throw .internal("subscription status \(statusValue) is not one this service knows")
        }
        // Apple answered these and no client presented them: every failure is internal.
        let transaction: AppStoreTransaction
        let renewal: AppStoreRenewalInfo
        do throws(AppStoreRefusal) {
            let jws = try CompactJWS.split(try fields.string("signedTransactionInfo"))
            try verifySignature(jws, what: "transaction")
            transaction = try AppStoreTransaction.decode(jws.payload)
            let renewalJWS = try CompactJWS.split(try fields.string("signedRenewalInfo"))
            try verifySignature(renewalJWS, what: "renewal info")
            renewal = try AppStoreRenewalInfo.decode(renewalJWS.payload)
        } catch {
            throw .internal("signed data in the status answer: \(error.reason)")
        }
        guard transaction.kind == .autoRenewable else { throw .internal("the status transaction is not a subscription") }
        guard transaction.bundleId == bundleId else { throw .internal("the status transaction names another app's bundleId") }
        guard transaction.originalTransactionId == originalTransactionId, renewal.originalTransactionId == originalTransactionId
        else { throw .internal("the status entry's signed data names another subscription") }
        if (env == .sandbox || transaction.environment == .sandbox || renewal.environment == .sandbox) && !creditsSandbox {
            throw .test("subscription status from the Sandbox environment")
        }
        if transaction.ownership == .familyShared { throw .invalid("the subscription's transaction is family-shared") }
        return AppStoreSubscriptionRead(status: status, transaction: transaction, renewal: renewal)
    }
}
