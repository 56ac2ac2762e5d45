import BadgeCore
import JSON
import OutsideHTTP

/// `[btcpay]` as the provider client needs it.
public struct BTCPayAccount: Sendable, Equatable {
    /// Greenfield API key; sent only as `Authorization: token …`, never logged.
    public var apiKey: String
    public var storeId: String
    /// The server, e.g. `https://btcpay.example`.
    public var api: OutsideAPI
    /// The confirmations an invoice waits for before it is settled (`checkout.speedPolicy`).
    public var speedPolicy: String

    public init(apiKey: String, storeId: String, api: OutsideAPI, speedPolicy: String = "MediumSpeed") {
        self.apiKey = apiKey
        self.storeId = storeId
        self.api = api
        self.speedPolicy = speedPolicy
    }
}

/// BTC and XMR payments through BTCPay Server's Greenfield API: an invoice
/// per protocol invoice with `metadata.orderId` = the invoice id and one on-chain payment method,
/// then its payment methods for the address and the amount in coin.
public struct BTCPayInvoices: Sendable {
    let account: BTCPayAccount
    let client: any OutsideHTTPTransport

    public init(account: BTCPayAccount, client: any OutsideHTTPTransport = URLSessionTransport()) {
        self.account = account
        self.client = client
    }

    /// The Greenfield payment method of a coin.
    public static func paymentMethodId(_ method: PaymentMethod) -> String? {
        switch method {
        case .btc: "BTC-CHAIN"
        case .xmr: "XMR-CHAIN"
        case .card: nil
        }
    }

    /// How long after its expiry BTCPay watches an invoice for a late payment: a day, its default,
    /// pinned on every invoice (the service keeps a late invoice payable as long).
    public static let monitoringMinutes = 1440

    var storePath: String { account.api.baseURL + "/api/v1/stores/" + FormEncoding.escape(account.storeId) + "/invoices" }

    var headers: [(String, String)] {
        [("Authorization", "token " + account.apiKey), ("Content-Type", "application/json"), ("Accept", "application/json")]
    }

    public func createPayment(_ request: PaymentRequest) throws(PaymentProviderError) -> PaymentDestination {
        guard let methodId = Self.paymentMethodId(request.method) else { throw .refused("BTCPay takes BTC and XMR only") }
        let minutes = max(1, (request.expiresAt.seconds - request.createdAt.seconds + 59) / 60)
        let body: JSONValue = [
            "amount": .string(CurrencyUnits.decimalText(minorUnits: request.amount, currency: request.currency)),
            "currency": .string(request.currency.uppercased()),
            "metadata": ["orderId": .string(request.invoiceId), "itemDesc": .string(request.description)],
            // Every checkout setting the settlement rules rely on is pinned, not left to the store's
            // defaults: how long a late payment is watched for, no underpayment accepted, the
            // destination made now (a lazy method has none to show), and the confirmations waited for.
            "checkout": ["paymentMethods": [.string(methodId)], "expirationMinutes": .number(JSONNumber(Int(minutes))),
                         "monitoringMinutes": .number(JSONNumber(Self.monitoringMinutes)), "paymentTolerance": 0,
                         "lazyPaymentMethods": false, "speedPolicy": .string(account.speedPolicy)],
        ]
        let created = try call("POST", storePath, body: body.serialized(), what: "creating an invoice")
        guard let id = created["id"]?.stringValue, !id.isEmpty, id.allSatisfy({ $0.isLetter || $0.isNumber }) else {
            throw .unavailable("creating an invoice: the answer has no usable id")
        }
        let methods = try call("GET", storePath + "/" + id + "/payment-methods", body: nil, what: "reading payment methods")
        guard let list = methods.arrayValue,
              let entry = list.first(where: { $0["paymentMethodId"]?.stringValue == methodId }),
              let address = entry["destination"]?.stringValue, !address.isEmpty,
              let amount = entry["amount"]?.stringValue, !amount.isEmpty
        else { throw .unavailable("reading payment methods: no \(methodId) destination and amount") }
        return PaymentDestination(providerRef: id, address: address, cryptoAmount: amount)
    }

    /// Reads an invoice afresh (`GET /api/v1/stores/{storeId}/invoices/{id}`): deliveries are only hints.
    public func invoiceState(providerRef: String) throws(PaymentProviderError) -> ProviderInvoiceState {
        guard !providerRef.isEmpty, providerRef.allSatisfy({ $0.isLetter || $0.isNumber }) else {
            throw .refused("not a BTCPay invoice id")
        }
        return try Self.state(of: try call("GET", storePath + "/" + providerRef, body: nil, what: "reading an invoice"),
                              what: "reading an invoice")
    }

    /// An `InvoiceData` as a settlement reads it, whether read alone or listed.
    static func state(of invoice: JSONValue, what: String) throws(PaymentProviderError) -> ProviderInvoiceState {
        let orderId = invoice["metadata"]?["orderId"]?.stringValue
        switch invoice["status"]?.stringValue {
        case "Settled":
            let currency = invoice["currency"]?.stringValue
            let amount = invoice["amount"]?.stringValue.flatMap { text in
                currency.flatMap { CurrencyUnits.minorUnits(decimalText: text, currency: $0) }
            }
            return .settled(orderId: orderId, paidLate: invoice["additionalStatus"]?.stringValue == "PaidLate",
                            amount: amount, currency: currency?.lowercased())
        case "New", "Processing": return .pending(orderId: orderId)
        case "Expired":
            let monitored = invoice["monitoringExpiration"]?.numberValue?.exactInt.map { Timestamp(seconds: Int64($0)) }
            return .expired(orderId: orderId, monitoredUntil: monitored)
        case "Invalid": return .failed(orderId: orderId)
        default: throw .unavailable("\(what): unknown status")
        }
    }

    func call(_ method: String, _ url: String, body: [UInt8]?, what: String) throws(PaymentProviderError) -> JSONValue {
        let response = try client.call(method, url: url, headers: headers, body: body, api: account.api)
        switch response.status {
        case 200..<300: break
        case 401, 403: throw .refused("\(what): BTCPay answered \(response.status)")
        default: throw .unavailable("\(what): BTCPay answered \(response.status)")
        }
        guard let json = try? JSONParser().parse(response.body) else { throw .unavailable("\(what): the answer is not JSON") }
        return json
    }
}
