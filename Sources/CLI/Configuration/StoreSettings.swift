import AppStore
import Foundation
import GooglePlay

/// The settings of one store or payment provider section. A section that is present (even
/// empty) configures its provider; an absent one answers `provider_not_configured`.
public protocol StoreSettings: Sendable, Equatable {
    /// The INI section, also the provider's name in the protocol (`apple`, `google`, …).
    static var section: String { get }
    /// The section's keys, in the order the README lists them.
    static var keys: [StoreKey<Self>] { get }
    /// No key set yet.
    init()
}

/// One key of a store section: its name, how its text is read, how it is shown.
public struct StoreKey<Store: StoreSettings>: Sendable {
    public let name: String
    /// Masked by `config check` and never echoed in an error.
    public let isSecret: Bool
    /// A value refused is not echoed in the error (a secret pasted under the wrong key).
    public var hidesRefusedValue = false
    /// As ``ConfigurationKey/describedDefault``: nil when the value an empty section shows is the default.
    public var describedDefault: KeyDefault?
    let read: @Sendable (inout Store, String) throws(ConfigurationKey.Rejection) -> Void
    let show: @Sendable (Store) -> String?

    /// A key read by `read` and shown by `show` (nil: unset).
    public init(_ name: String, isSecret: Bool = false,
                read: @escaping @Sendable (inout Store, String) throws(ConfigurationKey.Rejection) -> Void,
                show: @escaping @Sendable (Store) -> String?) {
        self.name = name
        self.isSecret = isSecret
        self.read = read
        self.show = show
    }

    /// This key with its default described as `described`.
    public func defaulting(_ described: KeyDefault) -> StoreKey {
        var key = self
        key.describedDefault = described
        return key
    }

    /// Any text.
    public static func text(_ name: String, _ property: any SendableKeyPath<Store, String?>) -> StoreKey {
        StoreKey(name, read: { s, v in s[keyPath: property] = v }, show: { $0[keyPath: property] })
    }

    /// A secret (API key, webhook secret): masked wherever it is shown.
    public static func secret(_ name: String, _ property: any SendableKeyPath<Store, String?>) -> StoreKey {
        StoreKey(name, isSecret: true, read: { s, v in s[keyPath: property] = v }, show: { $0[keyPath: property] })
    }

    /// A secret whose shape is known (a Stripe key's prefix): `validate` throws what it expected,
    /// never echoing the value.
    public static func secret(_ name: String, _ property: any SendableKeyPath<Store, String?>,
                              validate: @escaping @Sendable (String) throws(ConfigurationKey.Rejection) -> Void) -> StoreKey {
        StoreKey(name, isSecret: true, read: { s, v throws(ConfigurationKey.Rejection) in
            try validate(v)
            s[keyPath: property] = v
        }, show: { $0[keyPath: property] })
    }

    /// An absolute `http://` or `https://` URL with a host (a page the buyer is sent to, an
    /// endpoint); `defaultURL` is the one used while it is unset, shown as its default.
    public static func url(_ name: String, _ property: any SendableKeyPath<Store, String?>, default defaultURL: String? = nil) -> StoreKey {
        StoreKey(name, read: { s, v throws(ConfigurationKey.Rejection) in
            try URLShape.absolute(v)
            s[keyPath: property] = v
        }, show: { $0[keyPath: property] ?? defaultURL })
    }

    /// A base URL the service appends API paths to: an absolute `http(s)://` URL without a query
    /// or fragment, and without `apiPath` (what the service appends itself, e.g. `/api/v1`).
    public static func baseURL(_ name: String, _ property: any SendableKeyPath<Store, String?>, default defaultURL: String? = nil,
                               apiPath: String? = nil) -> StoreKey {
        StoreKey(name, read: { s, v throws(ConfigurationKey.Rejection) in
            try URLShape.base(v, apiPath: apiPath)
            s[keyPath: property] = v
        }, show: { $0[keyPath: property] ?? defaultURL })
    }

    /// One of `allowed`; `refused` names values turned down on purpose, with the reason.
    public static func choice(_ name: String, _ property: any SendableKeyPath<Store, String>, allowed: [String],
                              refused: [String: String] = [:]) -> StoreKey {
        StoreKey(name, read: { s, v throws(ConfigurationKey.Rejection) in
            if let why = refused[v] { throw ConfigurationKey.Rejection(expected: "one of \(allowed.joined(separator: ", ")) (\(v): \(why))") }
            guard allowed.contains(v) else { throw ConfigurationKey.Rejection(expected: "one of \(allowed.joined(separator: ", "))") }
            s[keyPath: property] = v
        }, show: { $0[keyPath: property] })
    }

    /// Whole seconds within `range` (`10`, `10s`, `2m`).
    public static func seconds(_ name: String, _ property: any SendableKeyPath<Store, Int>, in range: ClosedRange<Int>) -> StoreKey {
        StoreKey(name, read: { s, v throws(ConfigurationKey.Rejection) in
            s[keyPath: property] = try ValueSyntax.duration(v, unit: .seconds, in: range)
        }, show: { String($0[keyPath: property]) })
    }

    /// Bytes within `range` (`65536`, `64KiB`, `1MiB`).
    public static func size(_ name: String, _ property: any SendableKeyPath<Store, Int>, in range: ClosedRange<Int>) -> StoreKey {
        StoreKey(name, read: { s, v throws(ConfigurationKey.Rejection) in
            s[keyPath: property] = try ValueSyntax.size(v, in: range)
        }, show: { String($0[keyPath: property]) })
    }
}

/// `[apple]`: App Store receipts (JWS, verified offline against `root_certificates`) and,
/// for subscriptions, the App Store Server API key.
public struct AppleStoreSettings: StoreSettings {
    public var bundleID: String?
    /// One or more DER or PEM files, separated by commas.
    public var rootCertificates: String?
    public var appAppleID: String?
    public var issuerID: String?
    public var keyID: String?
    /// The App Store Connect In-App Purchase key, a `.p8` file.
    public var privateKeyFile: String?
    public var apiURL: String?
    public var sandboxAPIURL: String?
    /// Seconds an App Store Server API call may take.
    public var timeout = StoreCallLimits.defaultTimeoutSeconds
    /// Bytes of an App Store Server API answer read at most.
    public var maxResponseBytes = StoreCallLimits.defaultMaxResponseBytes

    public init() {}
    public static let section = "apple"
    public static let keys: [StoreKey<Self>] = [
        StoreKey.text("bundle_id", \.bundleID).defaulting(.required),
        StoreKey.text("root_certificates", \.rootCertificates).defaulting(.required),
        .text("app_apple_id", \.appAppleID),
        StoreKey("issuer_id", read: { s, v throws(ConfigurationKey.Rejection) in
            try KeyShape.appleIssuerID(v)
            s.issuerID = v
        }, show: { $0.issuerID }),
        StoreKey("key_id", read: { s, v throws(ConfigurationKey.Rejection) in
            try KeyShape.appleKeyID(v)
            s.keyID = v
        }, show: { $0.keyID }),
        .text("private_key", \.privateKeyFile),
        .baseURL("api_url", \.apiURL, default: AppStoreServerAPI.defaultProductionURL),
        .baseURL("sandbox_api_url", \.sandboxAPIURL, default: AppStoreServerAPI.defaultSandboxURL),
        .seconds("timeout", \.timeout, in: StoreCallLimits.timeoutRange),
        .size("max_response_bytes", \.maxResponseBytes, in: StoreCallLimits.maxResponseBytesRange),
    ]

    /// The root certificate files, in the order given.
    public var rootCertificateFiles: [String] {
        (rootCertificates ?? "").split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

/// `[google]`: Google Play purchase tokens and the Play Developer API.
public struct GooglePlaySettings: StoreSettings {
    public var packageName: String?
    /// The service account's JSON key file (the JWT bearer grant's key).
    public var serviceAccountFile: String?
    public var apiURL: String?
    public var tokenURL: String?
    /// Seconds a call to Google (token endpoint or Play Developer API) may take.
    public var timeout = GooglePlaySettings.defaultTimeoutSeconds
    /// Bytes of an answer from Google read at most; a larger one is `internal`.
    public var maxResponseBytes = GooglePlaySettings.defaultMaxResponseBytes
    /// The `aud` of the Pub/Sub push subscription's OIDC tokens (`POST /webhooks/google`).
    public var pushAudience: String?
    /// The service account the push subscription signs its tokens as (their `email`).
    public var pushServiceAccount: String?
    /// Google's JWKS, the keys push tokens are signed with (Google's by default).
    public var pushJWKSURL: String?

    public static let defaultTimeoutSeconds = 10
    public static let defaultMaxResponseBytes = 1 << 20

    public init() {}
    public static let section = "google"
    public static let keys: [StoreKey<Self>] = [
        StoreKey("package_name", read: { s, v throws(ConfigurationKey.Rejection) in
            // Segments of a letter then letters, digits or '_', at least two (chat.simplex.app).
            let segments = v.split(separator: ".", omittingEmptySubsequences: false)
            guard segments.count >= 2, segments.allSatisfy({ segment in
                guard let first = segment.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
                return segment.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || (48...57).contains($0.value) || $0 == "_") }
            }) else { throw ConfigurationKey.Rejection(expected: "an Android package name such as chat.simplex.app") }
            s.packageName = v
        }, show: { $0.packageName }).defaulting(.required),
        StoreKey.text("service_account", \.serviceAccountFile).defaulting(.required),
        .baseURL("api_url", \.apiURL, default: GooglePlayEndpoint.defaultAPIURL),
        .url("token_url", \.tokenURL, default: GooglePlayEndpoint.defaultTokenURL),
        .seconds("timeout", \.timeout, in: 1...120),
        .size("max_response_bytes", \.maxResponseBytes, in: 1024...(64 << 20)),
        .text("push_audience", \.pushAudience),
        StoreKey("push_service_account", read: { s, v throws(ConfigurationKey.Rejection) in
            let parts = v.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !v.contains(where: \.isWhitespace) else {
                throw ConfigurationKey.Rejection(expected: "a service account email such as pubsub-push@project.iam.gserviceaccount.com")
            }
            s.pushServiceAccount = v
        }, show: { $0.pushServiceAccount }),
        .url("push_jwks_url", \.pushJWKSURL, default: GoogleKeyCache.defaultURL),
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
    /// Seconds a call to the Stripe API may take.
    public var timeout = StoreCallLimits.defaultTimeoutSeconds
    /// Bytes of a Stripe API answer read at most.
    public var maxResponseBytes = StoreCallLimits.defaultMaxResponseBytes

    /// Stripe's API, used while `api_url` is unset.
    public static let defaultAPIURL = "https://api.stripe.com"

    public init() {}
    public static let section = "stripe"
    public static let keys: [StoreKey<Self>] = [
        StoreKey.secret("secret_key", \.secretKey, validate: KeyShape.stripeSecretKey).defaulting(.required),
        {
            var key = StoreKey<Self>("publishable_key", read: { s, v throws(ConfigurationKey.Rejection) in
                try KeyShape.stripePublishableKey(v)
                s.publishableKey = v
            }, show: { $0.publishableKey })
            key.hidesRefusedValue = true
            return key
        }(),
        StoreKey.secret("webhook_secret", \.webhookSecret, validate: KeyShape.stripeWebhookSecret).defaulting(.required),
        StoreKey.url("success_url", \.successURL).defaulting(.required), StoreKey.url("cancel_url", \.cancelURL).defaulting(.required),
        .baseURL("api_url", \.apiURL, default: defaultAPIURL),
        .seconds("timeout", \.timeout, in: StoreCallLimits.timeoutRange),
        .size("max_response_bytes", \.maxResponseBytes, in: StoreCallLimits.maxResponseBytesRange),
    ]
}

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

/// The timeout and response cap every outside call of a payment provider has.
public enum StoreCallLimits {
    public static let defaultTimeoutSeconds = 10
    public static let timeoutRange = 1...120
    public static let defaultMaxResponseBytes = 1 << 20
    public static let maxResponseBytesRange = 1024...(64 << 20)
}
