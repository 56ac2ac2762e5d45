import BadgeCore
import GooglePlay
import Providers

extension BadgeService {
    /// `POST /webhooks/google` (Play real-time developer notifications by Pub/Sub push) once its
    /// body is read: nil without `[google]` push settings (the route answers as any unconfigured
    /// webhook); a push whose OIDC token does not pass, whose body is no DeveloperNotification,
    /// or for another package is refused (400, the reason logged); Google's keys unavailable is
    /// `verifierUnavailable` (503: Pub/Sub delivers again); otherwise the settlement to run.
    public func playNotificationSettlement(body: [UInt8], authorization: String?,
                                           now: Timestamp) throws(WebhookRefusal) -> (() -> SettlementOutcome)? {
        guard let googlePlay, let push = googlePlay.push else { return nil }
        let notification: PlayDeveloperNotification
        do throws(PushRefusal) {
            try push.authenticate(authorization: authorization, now: now)
            notification = try PlayDeveloperNotification.read(body)
        } catch {
            switch error {
            case .unavailable:
                configuration.reportProviderFailure("google notification not verified: \(error)")
                throw .verifierUnavailable(error.description)
            case .refused:
                configuration.reportProviderFailure("google notification refused: \(error)")
                throw .unverifiable(error.description)
            }
        }
        guard notification.packageName == googlePlay.client.endpoint.packageName else {
            configuration.reportProviderFailure("google notification refused: it is for another package than [google] package_name")
            throw .unverifiable("the notification is for another package")
        }
        return { self.settle(notification) }
    }

    /// An authenticated notification: a voided purchase becomes a ``StoreRefundNotice`` (a
    /// one-time product found by its token's digest, a subscription by its token and the voided
    /// `orderId` as the charge), `SUBSCRIPTION_REVOKED` one that revokes the whole subscription;
    /// every other notification, `testNotification` included, is recorded and ignored.
    func settle(_ notification: PlayDeveloperNotification) -> SettlementOutcome {
        let id = notification.messageId
        switch notification.event {
        case let .voided(token, orderId, isSubscription):
            let notice = StoreRefundNotice(
                store: .google, kind: .voided, productKind: isSubscription ? .subscription : .oneTime, productId: nil,
                paymentReference: GooglePlayFunding.reference(token: token), subscriptionReference: isSubscription ? token : nil,
                chargeId: isSubscription ? orderId : nil, purchaseToken: token, orderId: orderId)
            return applyStoreNotice(notice, provider: "google", deliveryId: id,
                                    why: isSubscription ? "voided subscription" : "voided one-time purchase")
        case let .subscription(type, token) where type == PlayDeveloperNotification.subscriptionRevoked:
            let notice = StoreRefundNotice(
                store: .google, kind: .subscriptionRevoked, productKind: .subscription, productId: nil,
                paymentReference: GooglePlayFunding.reference(token: token), subscriptionReference: token, chargeId: nil,
                purchaseToken: token)
            return applyStoreNotice(notice, provider: "google", deliveryId: id, why: "SUBSCRIPTION_REVOKED")
        case let .subscription(type, _):
            return applyStoreNotice(nil, provider: "google", deliveryId: id, why: "subscriptionNotification \(type)")
        case .testNotification:
            return applyStoreNotice(nil, provider: "google", deliveryId: id, why: "testNotification")
        case .other(let kind):
            return applyStoreNotice(nil, provider: "google", deliveryId: id, why: kind)
        }
    }
}
