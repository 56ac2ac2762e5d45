/// A key path that may be kept in the settings table (shared between threads).
public typealias SendableKeyPath<Root, Value> = WritableKeyPath<Root, Value> & Sendable

/// The settings of one store or payment provider section. A section that is present (even
/// empty) configures its provider; an absent one answers `provider_not_configured`.
public protocol StoreSettings: Sendable, Equatable {
    /// The INI section, also the provider's name in the protocol (`apple`, `google`, …).
    static var section: String { get }
    /// The section's keys and the properties they set, in the order the README lists them.
    static var keys: [(key: String, property: any SendableKeyPath<Self, String?>)] { get }
    /// No key set yet.
    init()
}

/// `[apple]`: App Store receipts (JWS) and the App Store Server API.
public struct AppleStoreSettings: StoreSettings {
    public var bundleID: String?
    public var appAppleID: String?
    public var rootCertificates: String?
    public var environment: String?
    public var apiIssuerID: String?
    public var apiKeyID: String?
    public var apiPrivateKeyFile: String?
    public var apiURL: String?

    public init() {}
    public static let section = "apple"
    public static let keys: [(key: String, property: any SendableKeyPath<Self, String?>)] = [
        ("bundle_id", \.bundleID), ("app_apple_id", \.appAppleID), ("root_certificates", \.rootCertificates),
        ("environment", \.environment), ("api_issuer_id", \.apiIssuerID), ("api_key_id", \.apiKeyID),
        ("api_private_key_file", \.apiPrivateKeyFile), ("api_url", \.apiURL),
    ]
}

/// `[google]`: Google Play purchase tokens and the Play Developer API.
public struct GooglePlaySettings: StoreSettings {
    public var packageName: String?
    public var serviceAccountFile: String?
    public var apiURL: String?
    public var tokenURL: String?

    public init() {}
    public static let section = "google"
    public static let keys: [(key: String, property: any SendableKeyPath<Self, String?>)] = [
        ("package_name", \.packageName), ("service_account_file", \.serviceAccountFile), ("api_url", \.apiURL),
        ("token_url", \.tokenURL),
    ]
}

/// `[stripe]`: card payments through Stripe Checkout.
public struct StripeSettings: StoreSettings {
    public var secretKey: String?
    public var publishableKey: String?
    public var webhookSecret: String?
    public var successURL: String?
    public var cancelURL: String?
    public var apiURL: String?

    public init() {}
    public static let section = "stripe"
    public static let keys: [(key: String, property: any SendableKeyPath<Self, String?>)] = [
        ("secret_key", \.secretKey), ("publishable_key", \.publishableKey), ("webhook_secret", \.webhookSecret),
        ("success_url", \.successURL), ("cancel_url", \.cancelURL), ("api_url", \.apiURL),
    ]
}

/// `[btcpay]`: BTC and XMR payments through a BTCPay Server.
public struct BTCPaySettings: StoreSettings {
    public var url: String?
    public var apiKey: String?
    public var storeID: String?
    public var webhookSecret: String?

    public init() {}
    public static let section = "btcpay"
    public static let keys: [(key: String, property: any SendableKeyPath<Self, String?>)] = [
        ("url", \.url), ("api_key", \.apiKey), ("store_id", \.storeID), ("webhook_secret", \.webhookSecret),
    ]
}
