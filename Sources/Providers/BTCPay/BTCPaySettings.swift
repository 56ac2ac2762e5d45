import Settings

/// `[btcpay]`: BTC and XMR payments through a BTCPay Server.
public struct BTCPaySettings: StoreSettings {
    public var url: String?
    public var apiKey: String?
    public var storeID: String?
    public var webhookSecret: String?
    /// Seconds a call to the BTCPay API may take.
    public var timeout = StoreCallLimits.defaultTimeoutSeconds
    /// Bytes of a BTCPay API answer read at most.
    public var maxResponseBytes = StoreCallLimits.defaultMaxResponseBytes
    /// The confirmations BTCPay waits for before it calls an invoice settled (`checkout.speedPolicy`,
    /// pinned on every invoice): `MediumSpeed` (1), `LowMediumSpeed` (2) or `LowSpeed` (6).
    public var speedPolicy = "MediumSpeed"

    public init() {}
    public static let section = "btcpay"
    public static let keys: [StoreKey<Self>] = [
        StoreKey.baseURL("url", \.url, apiPath: "/api/v1").defaulting(.required), StoreKey.secret("api_key", \.apiKey).defaulting(.required),
        StoreKey.text("store_id", \.storeID).defaulting(.required), StoreKey.secret("webhook_secret", \.webhookSecret).defaulting(.required),
        .choice("speed_policy", \.speedPolicy, allowed: ["MediumSpeed", "LowMediumSpeed", "LowSpeed"],
                refused: ["HighSpeed": "no confirmation: a payment could be spent again after it was credited"]),
        .seconds("timeout", \.timeout, in: StoreCallLimits.timeoutRange),
        .size("max_response_bytes", \.maxResponseBytes, in: StoreCallLimits.maxResponseBytesRange),
    ]
}
