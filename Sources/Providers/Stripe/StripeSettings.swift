import Settings

/// `[stripe]`: card payments through Stripe Checkout.
public struct StripeSettings: StoreSettings {
    public var secretKey: String?
    public var publishableKey: String?
    public var webhookSecret: String?
    public var successURL: String?
    public var cancelURL: String?
    public var apiURL: String?
    /// Seconds a call to the Stripe API may take.
    public var timeout = StoreCallLimits.defaultTimeoutSeconds
    /// Bytes of a Stripe API answer read at most.
    public var maxResponseBytes = StoreCallLimits.defaultMaxResponseBytes

    /// Stripe's API, used while `api_url` is unset.
    public static let defaultAPIURL = "https://api.stripe.com"

    public init() {}
    public static let section = "stripe"
    public static let keys: [StoreKey<Self>] = [
        StoreKey.secret("secret_key", \.secretKey, validate: StripeKeyShape.secretKey).defaulting(.required),
        {
            var key = StoreKey<Self>("publishable_key", read: { s, v throws(SettingRejection) in
                try StripeKeyShape.publishableKey(v)
                s.publishableKey = v
            }, show: { $0.publishableKey })
            key.hidesRefusedValue = true
            return key
        }(),
        StoreKey.secret("webhook_secret", \.webhookSecret, validate: StripeKeyShape.webhookSecret).defaulting(.required),
        StoreKey.url("success_url", \.successURL).defaulting(.required), StoreKey.url("cancel_url", \.cancelURL).defaulting(.required),
        .baseURL("api_url", \.apiURL, default: defaultAPIURL),
        .seconds("timeout", \.timeout, in: StoreCallLimits.timeoutRange),
        .size("max_response_bytes", \.maxResponseBytes, in: StoreCallLimits.maxResponseBytesRange),
    ]
}

/// The shapes of Stripe's keys, told apart by their prefixes, so a key pasted under the wrong
/// name is refused saying where it belongs (never echoing it).
enum StripeKeyShape {
    /// `[stripe] secret_key`: a secret (`sk_…`) or restricted (`rk_…`) key; a publishable key
    /// cannot create Checkout Sessions.
    static func secretKey(_ value: String) throws(SettingRejection) {
        if value.hasPrefix("sk_") || value.hasPrefix("rk_") { return }
        let expected = "a Stripe secret key (sk_…) or restricted key (rk_…) from the Dashboard's API keys page"
        if value.hasPrefix("pk_") {
            throw SettingRejection(expected: "\(expected); this is a publishable key (pk_…), which cannot create Checkout Sessions")
        }
        if value.hasPrefix("whsec_") {
            throw SettingRejection(expected: "\(expected); this is a webhook signing secret (whsec_…), which belongs in webhook_secret")
        }
        throw SettingRejection(expected: expected)
    }

    /// `[stripe] webhook_secret`: the endpoint's signing secret, `whsec_…`, whole.
    static func webhookSecret(_ value: String) throws(SettingRejection) {
        if value.hasPrefix("whsec_") { return }
        let expected = "the webhook endpoint's signing secret, whsec_… whole, from the Dashboard's webhook page"
        if ["sk_", "rk_", "pk_"].contains(where: value.hasPrefix) {
            throw SettingRejection(expected: "\(expected); this is an API key, which belongs in secret_key")
        }
        throw SettingRejection(expected: expected)
    }

    /// `[stripe] publishable_key` (unused): `pk_…`; a secret key here would be shown by `config check`.
    static func publishableKey(_ value: String) throws(SettingRejection) {
        if value.hasPrefix("pk_") { return }
        let expected = "a Stripe publishable key (pk_…)"
        if value.hasPrefix("sk_") || value.hasPrefix("rk_") {
            throw SettingRejection(expected: "\(expected); this is a secret key, which belongs in secret_key")
        }
        throw SettingRejection(expected: expected)
    }
}
