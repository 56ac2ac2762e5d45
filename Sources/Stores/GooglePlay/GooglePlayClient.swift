import BadgeCore
import Foundation
import JSON
import OutsideHTTP

/// Where and how the Play Developer API is reached.
public struct GooglePlayEndpoint: Sendable, Equatable {
    public static let defaultAPIURL = "https://androidpublisher.googleapis.com"
    public static let defaultTokenURL = "https://oauth2.googleapis.com/token"

    public var packageName: String
    /// Scheme, host and port, without `/androidpublisher/v3`.
    public var apiURL: String
    public var tokenURL: String
    public var timeoutSeconds: Double
    public var maxResponseBytes: Int

    public init(packageName: String, apiURL: String = defaultAPIURL, tokenURL: String = defaultTokenURL,
                timeoutSeconds: Double = 10, maxResponseBytes: Int = 1 << 20) {
        var base = apiURL
        while base.hasSuffix("/") { base.removeLast() }
        self.packageName = packageName
        self.apiURL = base
        self.tokenURL = tokenURL
        self.timeoutSeconds = timeoutSeconds
        self.maxResponseBytes = maxResponseBytes
    }
}

/// The Play Developer API calls the badge service makes: read and acknowledge one-time
/// purchases and subscriptions. Never consumes. Every failure is a ``PlayRefusal`` in the spec's
/// class; identifiers are checked before anything is sent.
public final class GooglePlayClient: Sendable {
    public let endpoint: GooglePlayEndpoint
    private let key: ServiceAccountKey
    private let transport: any OutsideHTTPTransport
    private let clock: @Sendable () -> Int64
    private let tokens = AccessTokenCache()

    public init(endpoint: GooglePlayEndpoint, key: ServiceAccountKey, transport: any OutsideHTTPTransport = URLSessionTransport(),
                clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) {
        self.endpoint = endpoint
        self.key = key
        self.transport = transport
        self.clock = clock
    }

    /// `purchases.products.get`, judged for `productID` (a test purchase refused unless `creditsTest`).
    public func readOneTime(productID: String, token: String, creditsTest: Bool = false) throws(PlayRefusal) -> PlayOneTimePurchase {
        try PlayIdentifiers.checkProductID(productID)
        try PlayIdentifiers.checkToken(token)
        let response = try call("GET", path: "purchases/products/\(productID)/tokens/\(token)", body: nil, doing: "reading")
        try Self.readStatus(response.status, call: "purchases.products.get", subscription: false)
        return try PlayOneTimePurchase.judge(response.body, claimedProductID: productID, creditsTest: creditsTest)
    }

    /// `purchases.products.acknowledge` (never `consume`, so the app's purchase query still lists it).
    public func acknowledgeOneTime(productID: String, token: String) throws(PlayRefusal) {
        try acknowledge("products", productID: productID, token: token)
    }

    /// `purchases.subscriptionsv2.get`. A 410 (expired too long ago to read) with Google's error is
    /// ``SubscriptionRead/gone``: a first purchase answers it `receipt_invalid`, a renewal check as ended.
    public func readSubscription(token: String) throws(PlayRefusal) -> SubscriptionRead {
        try PlayIdentifiers.checkToken(token)
        let response = try call("GET", path: "purchases/subscriptionsv2/tokens/\(token)", body: nil, doing: "reading")
        if response.status == 410 {
            // Only Play's own error says so: a 410 page from something in front of it (a proxy, a
            // wrong api_url) says nothing of the subscription, and gone ends a paid coverage.
            guard Self.isGoogleError(response.body, code: 410) else {
                throw .unavailable("purchases.subscriptionsv2.get answered 410 without Google's error")
            }
            return .gone
        }
        try Self.readStatus(response.status, call: "purchases.subscriptionsv2.get", subscription: true)
        return .found(try PlaySubscription.read(response.body))
    }

    /// `purchases.subscriptions.acknowledge` for the charge's subscription product.
    public func acknowledgeSubscription(productID: String, token: String) throws(PlayRefusal) {
        try acknowledge("subscriptions", productID: productID, token: token)
    }

    /// `purchases.<collection>.acknowledge` of `token` for `productID`.
    private func acknowledge(_ collection: String, productID: String, token: String) throws(PlayRefusal) {
        try PlayIdentifiers.checkProductID(productID)
        try PlayIdentifiers.checkToken(token)
        let response = try call("POST", path: "purchases/\(collection)/\(productID)/tokens/\(token):acknowledge",
                                body: Array("{}".utf8), doing: "acknowledging")
        try Self.acknowledgeStatus(response.status, call: "purchases.\(collection).acknowledge")
    }

    public enum SubscriptionRead: Sendable, Hashable {
        case found(PlaySubscription)
        /// 410: the subscription expired too long ago for Play to answer about it.
        case gone
    }

    // MARK: Status mapping (pure, the spec's Google Play list)

    /// The class of a non-200 status from a read. 401 and 403 are Google refusing this service's
    /// credentials or permissions; every other error — 400, 404 (a token just issued may not be
    /// visible yet), a products 410, 429, 5xx — is Play not answering about the purchase.
    public static func readStatus(_ status: Int, call: String, subscription: Bool) throws(PlayRefusal) {
        switch status {
        case 200: return
        case 401, 403: throw .internal("\(call) refused the service's credentials: \(status)")
        case 410 where subscription: throw .invalid("\(call) 410: expired too long ago to read")
        default: throw .unavailable("\(call) answered \(status)")
        }
    }

    /// Whether `body` is a Google API error document (`{"error":{"code":N,…}}`) of status `code`.
    static func isGoogleError(_ body: [UInt8], code: Int) -> Bool {
        (try? JSONValue.parse(body))?["error"]?["code"]?.numberValue?.exactInt == code
    }

    /// The class of a status from an acknowledgement: as for a read, with "acknowledging" in the reason.
    public static func acknowledgeStatus(_ status: Int, call: String) throws(PlayRefusal) {
        switch status {
        case 200...299: return
        case 401, 403: throw .internal("acknowledging: \(call) refused the service's credentials: \(status)")
        default: throw .unavailable("acknowledging: \(call) answered \(status)")
        }
    }

    // MARK: Calls

    /// One authorised call under `/androidpublisher/v3/applications/{package}/`; a 401 drops the
    /// cached token and the call is made once more with a fresh one.
    private func call(_ method: String, path: String, body: [UInt8]?, doing: String) throws(PlayRefusal) -> OutsideHTTPAnswer {
        guard PlayIdentifiers.isPackageName(endpoint.packageName) else {
            throw .internal("package name is not an Android package name")
        }
        let url = "\(endpoint.apiURL)/androidpublisher/v3/applications/\(endpoint.packageName)/\(path)"
        var response = OutsideHTTPAnswer(status: 0, body: [])
        for _ in 0..<2 {
            let token = try accessToken(doing: doing)
            var headers = [("Authorization", "Bearer \(token.value)"), ("Accept", "application/json")]
            if body != nil { headers.append(("Content-Type", "application/json")) }
            response = try send(method, url: url, headers: headers, body: body, doing: doing)
            guard response.status == 401 else { return response }
            tokens.discard(token)
        }
        return response
    }

    private func accessToken(doing: String) throws(PlayRefusal) -> AccessToken {
        let now = clock()
        if let token = tokens.current(now: now) { return token }
        guard let assertion = OAuthAssertion.make(key: key, now: now) else {
            throw .internal("\(doing): signing the OAuth assertion failed")
        }
        let response = try send("POST", url: endpoint.tokenURL,
                                headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
                                body: OAuthAssertion.tokenRequestBody(assertion: assertion), doing: doing)
        let token: AccessToken
        do { token = try AccessToken.fromTokenEndpoint(response, now: now) } catch {
            throw PlayRefusal(error.verdict, "\(doing): \(error.reason)")
        }
        tokens.store(token)
        return token
    }

    private func send(_ method: String, url: String, headers: [(String, String)], body: [UInt8]?,
                      doing: String) throws(PlayRefusal) -> OutsideHTTPAnswer {
        do {
            return try transport.send(method: method, url: url, headers: headers, body: body,
                                      timeoutSeconds: endpoint.timeoutSeconds, maxResponseBytes: endpoint.maxResponseBytes)
        } catch {
            switch error {
            case .noAnswer(let why): throw .unavailable("\(doing): Google \(why)")
            case .tooLarge(let cap): throw .internal("\(doing): Google's answer is over \(cap) bytes")
            }
        }
    }
}
