import Foundation
import BadgeCore
import JSON
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The fake Stripe and BTCPay APIs of `Tests/Peers/fake_payments.py`, on a free 127.0.0.1 port,
/// run by a test and stopped with it (the fake exits when its standard input closes).
public final class FakePayments: @unchecked Sendable {
    public let stripeKey = "sk_test_fake_" + UUID().uuidString
    public let btcpayKey = "btcpay-fake-" + UUID().uuidString
    public let btcpayStore = "FakeStore1"
    private let server: PeerServer
    public var port: Int { server.port }

    public init() throws {
        server = try PeerServer(script: "fake_payments.py", arguments: [stripeKey, btcpayKey, btcpayStore])
    }

    public var url: String { "http://127.0.0.1:\(port)" }

    /// Sets what the fake `provider` (`stripe`, `btcpay`) answers from now on: `ok`, `500`,
    /// `garbage`, `huge` (a success over the cap), `hugeerror` (a 503 page over it), `hang`, `400` (Stripe's `amount_too_small`), `401`,
    /// `redirect` (a 307 elsewhere on the fake, which `requests("redirected")` lists if followed), or
    /// `later-pages-500` (a list call's second page and later answer 500, everything else works).
    public func setMode(_ provider: String, _ mode: String) throws {
        _ = try post("/_control/mode", ["provider": .string(provider), "mode": .string(mode)])
    }

    /// Sets a fake BTCPay invoice's status (`Settled`, `Expired`, `Invalid`, `Processing`, `New`)
    /// and, when given, the amount it reports.
    public func setBTCPayStatus(_ id: String, _ status: String, additional: String = "None", amount: String? = nil,
                                monitoredUntil: Timestamp? = nil) throws {
        var request: JSONObject = ["id": .string(id), "status": .string(status), "additionalStatus": .string(additional)]
        if let amount { request["amount"] = .string(amount) }
        if let monitoredUntil { request["monitoringExpiration"] = .number(JSONNumber(Int(monitoredUntil.seconds))) }
        _ = try post("/_control/btcpay-status", request)
    }

    /// Sets fields of a fake Checkout Session as Stripe changes them when the buyer pays
    /// (`status` `complete`, `payment_status` `paid`, its `payment_intent`); `amountTotal` makes
    /// it report another amount. Its list (`GET /v1/checkout/sessions`) shows them.
    public func setStripeSession(_ id: String, status: String = "complete", paymentStatus: String = "paid",
                                 paymentIntent: String? = nil, amountTotal: Int? = nil) throws {
        var request: JSONObject = ["id": .string(id), "status": .string(status), "payment_status": .string(paymentStatus)]
        if let paymentIntent { request["payment_intent"] = .string(paymentIntent) }
        if let amountTotal { request["amount_total"] = .number(JSONNumber(amountTotal)) }
        _ = try post("/_control/stripe-session", request)
    }

    /// A `Stripe-Signature` header for `payload`, made by PyPI `stripe`.
    public func stripeSignature(payload: String, secret: String, timestamp: Int? = nil) throws -> String {
        var request: JSONObject = ["payload": .string(payload), "secret": .string(secret)]
        if let timestamp { request["timestamp"] = .number(JSONNumber(timestamp)) }
        return try post("/_sign/stripe", request)["header"]?.stringValue ?? ""
    }

    /// A `BTCPay-Sig` header for `payload`, made with Python's `hmac`.
    public func btcpaySignature(payload: String, secret: String) throws -> String {
        try post("/_sign/btcpay", ["payload": .string(payload), "secret": .string(secret)])["header"]?.stringValue ?? ""
    }

    /// The requests the fake `provider` received, as it recorded them; `lists` holds the list
    /// calls of both (`provider`, and `query` with each parameter's values).
    public func requests(_ provider: String) throws -> [JSONValue] {
        let (data, _) = try Self.http("GET", url + "/_control/requests/" + provider, body: nil)
        return try JSONValue.parse([UInt8](data)).arrayValue ?? []
    }

    private func post(_ path: String, _ object: JSONObject) throws -> JSONValue {
        let (data, status) = try Self.http("POST", url + path, body: Data(JSONValue.object(object).serialized()))
        guard status == 200 else { throw PeerPython.Failure(status: Int32(status), stderr: String(decoding: data, as: UTF8.self)) }
        return try JSONValue.parse([UInt8](data))
    }

    /// One blocking HTTP exchange (tests only): body and status.
    public static func http(_ method: String, _ url: String, body: Data?, headers: [String: String] = [:],
                            timeout: Double = 30) throws -> (Data, Int) {
        var request = URLRequest(url: URL(string: url)!, timeoutInterval: timeout)
        request.httpMethod = method
        request.httpBody = body
        for (k, v) in headers { request.setValue(v, forHTTPHeaderField: k) }
        let done = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable { var data = Data(); var status = 0; var error: (any Error)? }
        let box = Box()
        URLSession.shared.dataTask(with: request) { data, response, error in
            box.data = data ?? Data()
            box.status = (response as? HTTPURLResponse)?.statusCode ?? 0
            box.error = error
            done.signal()
        }.resume()
        // URLSession's own timeout should fire first; this bounds a session that never calls back.
        guard done.wait(timeout: .now() + timeout + 5) == .success else { throw URLError(.timedOut) }
        if let error = box.error { throw error }
        return (box.data, box.status)
    }
}
