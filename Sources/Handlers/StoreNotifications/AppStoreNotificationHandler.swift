import AppStore
import BadgeCore
import JSON
import Providers

extension BadgeService {
    /// `POST /webhooks/apple` (App Store Server Notifications V2) once its body is read: nil
    /// without `[apple]` (the route answers as any unconfigured webhook); a body that is not
    /// `{"signedPayload": …}`, or a payload that does not verify with the purchase path's chain
    /// code, roots and bundle id, is refused (400, or 503 when the refusal may be this service's
    /// own, its reason in the log); otherwise the
    /// settlement to run.
    public func appStoreNotificationSettlement(body: [UInt8]) throws(WebhookRefusal) -> (() -> SettlementOutcome)? {
        guard let appStore else { return nil }
        guard let json = try? JSONParser().parse(body), let signed = json["signedPayload"]?.stringValue else {
            configuration.reportProviderFailure("apple notification refused: the body is not {\"signedPayload\": …}")
            throw .malformedEvent("the body is not {\"signedPayload\": …}")
        }
        let notification: AppStoreNotification
        do { notification = try appStore.verifier.notification(signedPayload: signed) } catch {
            configuration.reportProviderFailure("apple notification refused: \(error)")
            // Apple may not deliver again after a 4xx: a refusal that may be this service's own
            // (roots that do not hold the chain, a value it does not know yet, another bundle id)
            // is 503, so a genuine refund is not lost while the operator looks; a payload that
            // cannot verify is 400.
            if error.answer == .internal { throw .verifierUnavailable(error.description) }
            throw .unverifiable(error.description)
        }
        return { self.settle(notification) }
    }

    /// A verified notification: `REFUND` and `REVOKE` of a transaction become a
    /// ``StoreRefundNotice`` for the listeners; every other type (`REFUND_REVERSED` included: a
    /// refund taken back does not re-credit, README) is recorded and ignored. A Sandbox notice
    /// reaches the listeners too, marked: the coin wallet credits Sandbox purchases in production
    /// (App Review's), so their refunds must reach it; the badge ledger passes over it unless it
    /// credits them (`creditsSandbox`).
    func settle(_ notification: AppStoreNotification) -> SettlementOutcome {
        let sandbox = notification.environment == .sandbox
        let type = Self.loggable(notification.notificationType)
        let uuid = notification.notificationUUID
        let why = sandbox ? "\(type) (Sandbox)" : type
        guard type == "REFUND" || type == "REVOKE" else {
            return applyStoreNotice(nil, provider: "apple", deliveryId: uuid, why: why)
        }
        guard let t = notification.transaction else {
            return applyStoreNotice(nil, provider: "apple", deliveryId: uuid, why: "\(why) without a transaction")
        }
        let subscription = t.kind == .autoRenewable
        let notice = StoreRefundNotice(
            store: .apple, kind: type == "REFUND" ? .refunded : .revoked, productKind: subscription ? .subscription : .oneTime,
            productId: t.productId, paymentReference: t.transactionId,
            subscriptionReference: subscription ? t.originalTransactionId : nil, chargeId: subscription ? t.transactionId : nil,
            transactionId: t.transactionId, originalTransactionId: t.originalTransactionId, sandbox: sandbox)
        return applyStoreNotice(notice, provider: "apple", deliveryId: uuid, why: why)
    }

    /// A store's type name as the log shows it: upper-case letters, digits and `_`, else `unknown`.
    static func loggable(_ type: String) -> String {
        let allowed = type.count <= 64 && !type.isEmpty
            && type.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
        return allowed ? type : "unknown"
    }
}
