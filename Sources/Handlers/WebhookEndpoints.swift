import BadgeCore
import Providers

/// One webhook the service answers at `POST /webhooks/<provider>`: a payment provider's (one for
/// every kind the registry knows, deployed or not) or a store's notifications. The gateway routes
/// each, under the route name `webhook_<provider>`, and answers what ``accept`` decides.
public struct WebhookEndpoint: Sendable {
    /// The provider or store, as its section names it.
    public let provider: String
    /// Verifies a delivery at a time and returns the settlement to run; nil when the provider is
    /// not configured here (answered 501). A refusal writes nothing.
    public let accept: @Sendable (WebhookDelivery, Timestamp) throws(WebhookRefusal) -> (() -> SettlementOutcome)?

    public init(provider: String,
                accept: @escaping @Sendable (WebhookDelivery, Timestamp) throws(WebhookRefusal) -> (() -> SettlementOutcome)?) {
        self.provider = provider
        self.accept = accept
    }

    /// `/webhooks/<provider>`.
    public var path: String { "/webhooks/" + provider }
    /// The route name metrics and access lines give it: `webhook_<provider>`.
    public var route: String { "webhook_" + provider }
}

extension BadgeService {
    /// Every webhook: the payment providers' in the registry's order, then the App Store's and
    /// Google Play's notifications.
    public var webhookEndpoints: [WebhookEndpoint] {
        let payments = providers.webhooks.map { name, provider in
            WebhookEndpoint(provider: name) { delivery, now throws(WebhookRefusal) in
                guard let provider else { return nil }
                let event = try provider.event(of: delivery, at: now)
                return { self.settle(event, from: name) }
            }
        }
        let stores = [
            WebhookEndpoint(provider: "apple") { delivery, _ throws(WebhookRefusal) in
                try self.appStoreNotificationSettlement(body: delivery.body)
            },
            WebhookEndpoint(provider: "google") { delivery, now throws(WebhookRefusal) in
                try self.playNotificationSettlement(body: delivery.body, authorization: delivery.header("Authorization"), now: now)
            },
        ]
        return payments + stores
    }
}
