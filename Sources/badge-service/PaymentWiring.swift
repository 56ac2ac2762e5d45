import CLI
import Gateway
import Handlers
import Payments
import Webhooks

/// Builds the payment providers (their clients are the CLI's, which `reconcile` uses too) and
/// the webhook verifiers from `[stripe]` and `[btcpay]`. A present section must be complete: a
/// missing or invalid key stops the start with one line naming it.
enum PaymentWiring {
    /// `storeCall(provider, outcome)` hears how each call to a provider ended (`badge_store_calls_total`).
    static func providers(_ config: ServiceConfiguration,
                          storeCall: @escaping @Sendable (String, String) -> Void = { _, _ in }) throws -> (PaymentProviders, WebhookVerifiers) {
        var providers = PaymentProviders()
        var webhooks = WebhookVerifiers()
        if let stripe = config.stripe {
            providers.card = try config.stripeCheckout(storeCall: { storeCall("stripe", $0) })
            webhooks.stripe = StripeWebhook(secret: try ServiceConfiguration.need(stripe.webhookSecret, "stripe", "webhook_secret"))
        }
        if let btcpay = config.btcpay {
            providers.crypto = try config.btcpayInvoices(storeCall: { storeCall("btcpay", $0) })
            webhooks.btcpay = BTCPayWebhook(secret: try ServiceConfiguration.need(btcpay.webhookSecret, "btcpay", "webhook_secret"))
        }
        return (providers, webhooks)
    }
}
