import BadgeCore
import JSON

/// A Pub/Sub push of a Play real-time developer notification (stores.md B10), as much as this
/// service reads: the delivery's `messageId` and the `DeveloperNotification` in `message.data`.
public struct PlayDeveloperNotification: Sendable, Equatable {
    /// What the notification is about.
    public enum Event: Sendable, Equatable {
        /// `voidedPurchaseNotification`: `productType` 1 a subscription, 2 a one-time product.
        case voided(purchaseToken: String, orderId: String?, isSubscription: Bool)
        /// `subscriptionNotification` with its `notificationType` (12: `SUBSCRIPTION_REVOKED`).
        case subscription(type: Int, purchaseToken: String)
        case testNotification
        /// Anything else (`oneTimeProductNotification`, a kind Play adds): named for the log.
        case other(String)
    }

    public static let subscriptionRevoked = 12

    /// Pub/Sub's id of the delivery, the same on every retry: the deduplication key.
    public let messageId: String
    public let packageName: String
    public let event: Event

    /// Reads a push body; `.refused` for one that is not a Pub/Sub push of a DeveloperNotification.
    public static func read(_ body: [UInt8]) throws(PushRefusal) -> PlayDeveloperNotification {
        guard let push = try? JSONValue.parse(body), let message = push["message"]?.objectValue else {
            throw .refused("the body is not a Pub/Sub push message")
        }
        guard let messageId = (message["messageId"] ?? message["message_id"])?.stringValue, !messageId.isEmpty, messageId.utf8.count <= 256 else {
            throw .refused("the push message has no messageId")
        }
        guard let data = message["data"]?.stringValue, let decoded = Base64URL.decodeStandard(data),
              let notification = try? JSONValue.parse(decoded).objectValue
        else { throw .refused("the push message's data is not a base64 JSON object") }
        guard let packageName = notification["packageName"]?.stringValue else { throw .refused("the notification names no packageName") }
        return PlayDeveloperNotification(messageId: messageId, packageName: packageName, event: try event(of: notification))
    }

    static func event(of n: JSONObject) throws(PushRefusal) -> Event {
        if let voided = n["voidedPurchaseNotification"]?.objectValue {
            guard let token = voided["purchaseToken"]?.stringValue, !token.isEmpty else { throw .refused("a voided purchase without a purchaseToken") }
            guard let type = voided["productType"]?.numberValue?.exactInt, type == 1 || type == 2 else {
                throw .refused("a voided purchase whose productType is not 1 or 2")
            }
            return .voided(purchaseToken: token, orderId: voided["orderId"]?.stringValue, isSubscription: type == 1)
        }
        if let subscription = n["subscriptionNotification"]?.objectValue {
            guard let token = subscription["purchaseToken"]?.stringValue, !token.isEmpty,
                  let type = subscription["notificationType"]?.numberValue?.exactInt
            else { throw .refused("a subscription notification without a purchaseToken or notificationType") }
            return .subscription(type: type, purchaseToken: token)
        }
        if n["testNotification"]?.objectValue != nil { return .testNotification }
        if n["oneTimeProductNotification"] != nil { return .other("oneTimeProductNotification") }
        return .other("unknown")
    }
}
