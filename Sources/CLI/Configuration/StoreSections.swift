import AppStore
import Foundation
import GooglePlay
import Settings

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
        StoreKey("issuer_id", read: { s, v throws(SettingRejection) in
            try KeyShape.appleIssuerID(v)
            s.issuerID = v
        }, show: { $0.issuerID }),
        StoreKey("key_id", read: { s, v throws(SettingRejection) in
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
        StoreKey("package_name", read: { s, v throws(SettingRejection) in
            // Segments of a letter then letters, digits or '_', at least two (chat.simplex.app).
            let segments = v.split(separator: ".", omittingEmptySubsequences: false)
            guard segments.count >= 2, segments.allSatisfy({ segment in
                guard let first = segment.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
                return segment.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || (48...57).contains($0.value) || $0 == "_") }
            }) else { throw SettingRejection(expected: "an Android package name such as chat.simplex.app") }
            s.packageName = v
        }, show: { $0.packageName }).defaulting(.required),
        StoreKey.text("service_account", \.serviceAccountFile).defaulting(.required),
        .baseURL("api_url", \.apiURL, default: GooglePlayEndpoint.defaultAPIURL),
        .url("token_url", \.tokenURL, default: GooglePlayEndpoint.defaultTokenURL),
        .seconds("timeout", \.timeout, in: 1...120),
        .size("max_response_bytes", \.maxResponseBytes, in: 1024...(64 << 20)),
        .text("push_audience", \.pushAudience),
        StoreKey("push_service_account", read: { s, v throws(SettingRejection) in
            let parts = v.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !v.contains(where: \.isWhitespace) else {
                throw SettingRejection(expected: "a service account email such as pubsub-push@project.iam.gserviceaccount.com")
            }
            s.pushServiceAccount = v
        }, show: { $0.pushServiceAccount }),
        .url("push_jwks_url", \.pushJWKSURL, default: GoogleKeyCache.defaultURL),
    ]
}
