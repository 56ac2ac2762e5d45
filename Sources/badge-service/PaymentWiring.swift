import CLI
import Gateway
import Handlers
import OutsideHTTP
import Payments
import Webhooks

/// Builds the payment providers and webhook verifiers from `[stripe]` and `[btcpay]`. A present
/// section must be complete: a missing or invalid key stops the start with one line naming it.
enum PaymentWiring {
    /// `storeCall(provider, outcome)` hears how each call to a provider ended (`badge_store_calls_total`).
    static func providers(_ config: ServiceConfiguration,
                          storeCall: @escaping @Sendable (String, String) -> Void = { _, _ in }) throws -> (PaymentProviders, WebhookVerifiers) {
        var providers = PaymentProviders()
        var webhooks = WebhookVerifiers()
        if let stripe = config.stripe {
            func need(_ value: String?, _ key: String) throws -> String {
                guard let value, !value.isEmpty else { throw CommandFailure("[stripe] \(key) is required when [stripe] is present") }
                return value
            }
            let api = try outsideAPI(section: "stripe", url: stripe.apiURL ?? StripeSettings.defaultAPIURL,
                                     timeout: stripe.timeout, maxBytes: stripe.maxResponseBytes)
            providers.card = StripeCheckout(account: StripeAccount(
                secretKey: try need(stripe.secretKey, "secret_key"), successURL: try need(stripe.successURL, "success_url"),
                cancelURL: try need(stripe.cancelURL, "cancel_url"), api: api),
                client: CountedTransport { storeCall("stripe", $0) })
            webhooks.stripe = StripeWebhook(secret: try need(stripe.webhookSecret, "webhook_secret"))
        }
        if let btcpay = config.btcpay {
            func need(_ value: String?, _ key: String) throws -> String {
                guard let value, !value.isEmpty else { throw CommandFailure("[btcpay] \(key) is required when [btcpay] is present") }
                return value
            }
            let api = try outsideAPI(section: "btcpay", url: try need(btcpay.url, "url"), timeout: btcpay.timeout,
                                     maxBytes: btcpay.maxResponseBytes)
            providers.crypto = BTCPayInvoices(account: BTCPayAccount(
                apiKey: try need(btcpay.apiKey, "api_key"), storeId: try need(btcpay.storeID, "store_id"), api: api,
                speedPolicy: btcpay.speedPolicy), client: CountedTransport { storeCall("btcpay", $0) })
            webhooks.btcpay = BTCPayWebhook(secret: try need(btcpay.webhookSecret, "webhook_secret"))
        }
        return (providers, webhooks)
    }

    /// The configuration checked the URL, timeout and cap already; this only assembles them.
    static func outsideAPI(section: String, url: String, timeout: Int, maxBytes: Int) throws -> OutsideAPI {
        OutsideAPI(baseURL: url, timeoutSeconds: Double(timeout), maxResponseBytes: maxBytes)
    }
}
