import BadgeCore
import Foundation
import JSON
import OutsideHTTP
import Synchronization

/// `[stripe]` as the provider client needs it.
public struct StripeAccount: Sendable, Equatable {
    /// `sk_…` or a restricted `rk_…` key; sent only in the Authorization header, never logged.
    public var secretKey: String
    public var successURL: String
    public var cancelURL: String
    public var api: OutsideAPI

    public init(secretKey: String, successURL: String, cancelURL: String, api: OutsideAPI) {
        self.secretKey = secretKey
        self.successURL = successURL
        self.cancelURL = cancelURL
        self.api = api
    }
}

/// Card payments through Stripe Checkout: one Checkout Session (`mode=payment`) per invoice,
/// created with the invoice id as `client_reference_id` and as the `Idempotency-Key`, so a
/// retried call returns the same session.
public struct StripeCheckout: Sendable {
    let account: StripeAccount
    let client: any OutsideHTTPTransport
    /// Until when Stripe asked not to be called (its `Retry-After` on a 409 or 429), shared by
    /// every call of this client; `clock` reads UNIX seconds.
    let quiet: StripeQuietPeriod

    public init(account: StripeAccount, client: any OutsideHTTPTransport = URLSessionTransport(),
                clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) {
        self.account = account
        self.client = client
        quiet = StripeQuietPeriod(clock: clock)
    }

    /// One call to Stripe, unless it asked to be left alone until later: then `busy` with the
    /// seconds left, and Stripe is not called.
    func send(_ method: String, url: String, headers: [(String, String)], body: [UInt8]?,
              call: String) throws(PaymentProviderError) -> JSONValue {
        if let left = quiet.secondsLeft() {
            throw .busy("\(call): Stripe asked to wait", retryAfter: UInt32(clamping: left))
        }
        let response = try client.call(method, url: url, headers: headers, body: body, api: account.api)
        do { return try Self.parse(response, call: call, now: quiet.clock()) } catch {
            if case .busy(_, let after) = error { quiet.wait(seconds: Int64(after)) }
            throw error
        }
    }

    /// The form of `POST /v1/checkout/sessions` for `request` (Stripe API, Checkout Sessions).
    public func sessionForm(_ request: PaymentRequest) -> [(String, String)] {
        [
            ("mode", "payment"),
            ("line_items[0][price_data][currency]", request.currency.lowercased()),
            ("line_items[0][price_data][unit_amount]", String(request.amount)),
            ("line_items[0][price_data][product_data][name]", request.description),
            ("line_items[0][quantity]", "1"),
            ("client_reference_id", request.invoiceId),
            ("metadata[invoice_id]", request.invoiceId),
            // Session metadata is not copied to the PaymentIntent; refunds are joined through it.
            ("payment_intent_data[metadata][invoice_id]", request.invoiceId),
            ("expires_at", String(request.expiresAt.seconds)),
            ("success_url", account.successURL),
            ("cancel_url", account.cancelURL),
        ]
    }

    public func createPayment(_ request: PaymentRequest) throws(PaymentProviderError) -> PaymentDestination {
        guard request.method == .card else { throw .refused("Stripe takes card payments only") }
        let json = try send("POST", url: account.api.baseURL + "/v1/checkout/sessions", headers: [
            ("Authorization", "Bearer " + account.secretKey),
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Idempotency-Key", request.invoiceId),
            ("Accept", "application/json"),
        ], body: FormEncoding.encode(sessionForm(request)), call: "creating a Checkout Session")
        guard let id = json["id"]?.stringValue, !id.isEmpty, let url = json["url"]?.stringValue, !url.isEmpty else {
            throw .unavailable("creating a Checkout Session: the answer has no id or url")
        }
        // A session for another amount is not ours to hand out (a replayed idempotency key, a bug).
        if let total = json["amount_total"]?.numberValue?.exactInt, total != Int(request.amount) {
            throw .unavailable("creating a Checkout Session: amount_total \(total) differs from \(request.amount)")
        }
        return PaymentDestination(providerRef: id, url: url)
    }

    /// A 2xx JSON object, or the failure class of the answer: 401 and 403 refuse this
    /// service's key, and 400 and 402 the request itself (an amount under Stripe's minimum), which
    /// no retry changes (internal, Stripe's error code in the log); 409 (a request with the same
    /// idempotency key still running) and 429 (too many requests) are Stripe asking to wait, as
    /// long as its `Retry-After` says (a minute without one); every other status, and anything
    /// unreadable, is unavailability.
    static func parse(_ response: OutsideHTTPAnswer, call: String, now: Int64) throws(PaymentProviderError) -> JSONValue {
        switch response.status {
        case 200..<300: break
        case 409, 429:
            let asked = RetryAfter.seconds(response.retryAfterHeader, now: now) ?? busyDefaultSeconds
            throw .busy("\(call): Stripe answered \(response.status)", retryAfter: UInt32(clamping: min(max(asked, 1), busyMaximumSeconds)))
        case 401, 403: throw .refused("\(call): Stripe answered \(response.status)")
        case 400, 402: throw .refused("\(call): Stripe answered \(response.status)\(errorCode(response.body))")
        default: throw .unavailable("\(call): Stripe answered \(response.status)")
        }
        guard let json = try? JSONParser().parse(response.body), json.objectValue != nil else {
            throw .unavailable("\(call): the answer is not a JSON object")
        }
        return json
    }

    /// The wait after a 409 or 429 without `Retry-After`.
    static let busyDefaultSeconds: Int64 = 60
    /// The longest wait passed on: a client is never told to wait longer than a day because an
    /// answer said so.
    static let busyMaximumSeconds: Int64 = 86_400

    /// Stripe's `error.code` (`amount_too_small`, …) for the log: a short token, never the message,
    /// which may quote the request.
    private static func errorCode(_ body: [UInt8]) -> String {
        guard let code = (try? JSONParser().parse(body))?["error"]?["code"]?.stringValue, (1...64).contains(code.utf8.count),
              code.utf8.allSatisfy({ $0 == UInt8(ascii: "_") || (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) })
        else { return "" }
        return " \(code)"
    }
}

/// Until when Stripe asked this client not to call (its `Retry-After`), so a burst of requests
/// does not keep hammering an API that said to wait.
final class StripeQuietPeriod: Sendable {
    let clock: @Sendable () -> Int64
    private let until = Mutex<Int64>(0)

    init(clock: @escaping @Sendable () -> Int64) { self.clock = clock }

    /// Seconds left of the wait, or nil when Stripe may be called.
    func secondsLeft() -> Int64? {
        let now = clock()
        let end = until.withLock { $0 }
        return end > now ? end - now : nil
    }

    /// Waits `seconds` from now (never shortening a longer wait already asked for).
    func wait(seconds: Int64) {
        let end = clock() + seconds
        until.withLock { $0 = max($0, end) }
    }
}
