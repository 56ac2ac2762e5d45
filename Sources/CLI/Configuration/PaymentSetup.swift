import OutsideHTTP
import Payments

/// The payment provider clients of `[stripe]` and `[btcpay]`, built one way for `serve` and for
/// `reconcile`. A present section must be complete: a missing key is one line naming it.
extension ServiceConfiguration {
    /// The Stripe client of `[stripe]`, nil without the section. `storeCall(outcome)` hears how
    /// each call ended (`badge_store_calls_total`).
    public func stripeCheckout(storeCall: @escaping @Sendable (String) -> Void = { _ in }) throws -> StripeCheckout? {
        guard let stripe else { return nil }
        let api = OutsideAPI(baseURL: stripe.apiURL ?? StripeSettings.defaultAPIURL, timeoutSeconds: Double(stripe.timeout),
                             maxResponseBytes: stripe.maxResponseBytes)
        return StripeCheckout(account: StripeAccount(
            secretKey: try Self.need(stripe.secretKey, "stripe", "secret_key"),
            successURL: try Self.need(stripe.successURL, "stripe", "success_url"),
            cancelURL: try Self.need(stripe.cancelURL, "stripe", "cancel_url"), api: api),
            client: CountedTransport(record: storeCall))
    }

    /// The BTCPay client of `[btcpay]`, nil without the section.
    public func btcpayInvoices(storeCall: @escaping @Sendable (String) -> Void = { _ in }) throws -> BTCPayInvoices? {
        guard let btcpay else { return nil }
        let api = OutsideAPI(baseURL: try Self.need(btcpay.url, "btcpay", "url"), timeoutSeconds: Double(btcpay.timeout),
                             maxResponseBytes: btcpay.maxResponseBytes)
        return BTCPayInvoices(account: BTCPayAccount(
            apiKey: try Self.need(btcpay.apiKey, "btcpay", "api_key"), storeId: try Self.need(btcpay.storeID, "btcpay", "store_id"),
            api: api, speedPolicy: btcpay.speedPolicy), client: CountedTransport(record: storeCall))
    }

    /// A key a present payment section cannot work without.
    public static func need(_ value: String?, _ section: String, _ key: String) throws -> String {
        guard let value, !value.isEmpty else { throw CommandFailure("[\(section)] \(key) is required when [\(section)] is present") }
        return value
    }
}
