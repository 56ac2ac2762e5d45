import BadgeCore
import Crypto
import Foundation
import Handlers
import JSON
import Ledger
import Locking
import OutsideHTTP
import Providers
import Schema
import Storage
import TestSupport

/// A clock the test moves, starting at the real time (webhook signatures are made at the real time).
final class MovableClock: Sendable {
    private let t = LockedValueBox(Timestamp(seconds: Int64(Date().timeIntervalSince1970)))
    var now: Timestamp {
        get { t.withLock { $0 } }
        set { t.withLock { $0 = newValue } }
    }
}

/// The service on a fresh database with Stripe and BTCPay clients pointed at the fakes.
final class PaymentHarness: @unchecked Sendable {
    let dir = TemporaryDirectory("payments")
    let fake: FakePayments
    let clock = MovableClock()
    let issuer = CountingIssuer()
    let stripeWebhookSecret = "whsec_test_" + UUID().uuidString
    let btcpayWebhookSecret = "btcpay-secret-" + UUID().uuidString
    let providerFailures = LockedValueBox<[String]>([])
    let internalErrors = LockedValueBox<[String]>([])
    let strandedPayments = LockedValueBox<[String]>([])
    /// On the backend under test (``StoreBackend/underTest``).
    private(set) var store: any BadgeStore
    private(set) var service: BadgeService

    init() throws {
        fake = try FakePayments()
        store = try StoreBackend.underTest.makeStore(in: dir)
        try DefaultCatalog.seedIfEmpty(store, at: clock.now)
        service = BadgeService(store: store, issuer: issuer, clock: { Timestamp(seconds: 0) })
        restart()
    }

    var stripeAPI: OutsideAPI { OutsideAPI(baseURL: fake.url, timeoutSeconds: 2, maxResponseBytes: 64 * 1024) }
    var stripe: StripeCheckout {
        StripeCheckout(account: StripeAccount(secretKey: fake.stripeKey, successURL: "https://shop.test/ok",
                                              cancelURL: "https://shop.test/cancel", api: stripeAPI))
    }
    var btcpay: BTCPayInvoices {
        BTCPayInvoices(account: BTCPayAccount(apiKey: fake.btcpayKey, storeId: fake.btcpayStore, api: stripeAPI))
    }
    var stripeWebhook: StripeWebhook { StripeWebhook(secret: stripeWebhookSecret) }
    var btcpayWebhook: BTCPayWebhook { BTCPayWebhook(secret: btcpayWebhookSecret) }
    var stripeProvider: StripeProvider { StripeProvider(checkout: stripe, webhook: stripeWebhook) }
    var btcpayProvider: BTCPayProvider { BTCPayProvider(invoices: btcpay, webhook: btcpayWebhook) }
    /// Both providers, as a deployment with both sections has them.
    var providers: ProviderRegistry { ProviderRegistry([stripeProvider, btcpayProvider]) }

    /// A new service on the same database (what a restart keeps is what the database holds).
    func restart() {
        let clock = self.clock
        service = BadgeService(store: store, issuer: issuer, clock: { clock.now },
                               providers: providers,
                               configuration: .init(catalogCacheSeconds: 0,
                                                    reportInternalError: { [internalErrors] l in internalErrors.withLock { $0.append(l) } },
                                                    reportProviderFailure: { [providerFailures] l in providerFailures.withLock { $0.append(l) } },
                                                    reportStrandedPayment: { [strandedPayments] l in strandedPayments.withLock { $0.append(l) } }))
    }

    func send(_ command: RPCCommand, by key: Ed25519PrivateKey, to service: BadgeService? = nil) -> RPCResponse {
        let request = RPCRequest(purchaseKey: key.publicKey.purchaseKeyText, command: command)
        return (service ?? self.service).handle(body: request.json.serialized(), caller: .signer(key.publicKey)).response
    }

    /// A second service on the same clock, over `store` (the harness's own by default) and with
    /// `card` as its card provider (Stripe by default): one that races the harness's service.
    func racingService(store: (any BadgeStore)? = nil, card: (any PaymentProvider)? = nil) -> BadgeService {
        let clock = self.clock
        return BadgeService(store: store ?? self.store, issuer: issuer, clock: { clock.now },
                            providers: ProviderRegistry([card ?? stripeProvider, btcpayProvider]))
    }

    func invoice(by key: Ed25519PrivateKey, offerId: String? = nil, via: PaymentVia = .card(provider: .stripe),
                 priceId: String = DefaultCatalog.supporterPriceId, type: BadgeType = .supporter) -> RPCResponse {
        send(.getBadgeInvoice(priceId: priceId, offerId: offerId,
                              badgeInfo: BadgeInfo(badgeType: type, badgeExpiry: clock.now, badgeExtra: ""),
                              paymentVia: via, upgrade: nil), by: key)
    }

    func purchase(by key: Ed25519PrivateKey, invoiceId: String, masterKey: [UInt8]) -> RPCResponse {
        send(.purchaseBadge(masterKey: masterKey, payment: .invoice(invoiceId: invoiceId), upgrade: nil), by: key)
    }

    /// A Stripe event body, as Stripe sends them.
    func stripeEvent(id: String = "evt_" + UUID().uuidString, type: String, object: JSONValue) -> String {
        let event: JSONValue = ["id": .string(id), "object": "event", "api_version": "2025-01-27.acacia",
                                "created": .number(JSONNumber(Int(clock.now.seconds))), "type": .string(type),
                                "livemode": false, "pending_webhooks": 1, "data": ["object": object]]
        return event.text()
    }

    func paidSession(_ record: InvoiceRecord, amount: Int? = nil, currency: String? = nil, reference: String? = nil,
                     intent: String = "pi_" + UUID().uuidString) -> JSONValue {
        ["id": .string(record.providerRef), "object": "checkout.session", "client_reference_id": .string(reference ?? record.invoiceId),
         "amount_total": .number(JSONNumber(amount ?? Int(record.amount))), "currency": .string(currency ?? record.currency),
         "payment_status": "paid", "status": "complete", "payment_intent": .string(intent)]
    }

    /// Verifies a body signed by PyPI `stripe` and settles it, as the gateway does.
    func deliverStripe(_ body: String, timestamp: Int? = nil, secret: String? = nil) throws -> SettlementOutcome {
        let header = try fake.stripeSignature(payload: body, secret: secret ?? stripeWebhookSecret, timestamp: timestamp)
        return try deliver(body, header: ("Stripe-Signature", header), to: stripeProvider)
    }

    /// Verifies a BTCPay delivery signed with Python's `hmac` and settles it, as the gateway does.
    func deliverBTCPay(_ body: String) throws -> SettlementOutcome {
        let header = try fake.btcpaySignature(payload: body, secret: btcpayWebhookSecret)
        return try deliver(body, header: ("BTCPay-Sig", header), to: btcpayProvider)
    }

    /// `body` with its signature `header`, read by `provider` and settled by the service.
    func deliver(_ body: String, header: (name: String, value: String), to provider: any PaymentProvider) throws -> SettlementOutcome {
        let delivery = WebhookDelivery(body: Array(body.utf8), field: { $0.lowercased() == header.name.lowercased() ? header.value : nil })
        return service.settle(try provider.event(of: delivery, at: clock.now), from: provider.name)
    }

    func record(_ invoiceId: String) throws -> InvoiceRecord {
        guard let r = try store.read({ try $0.invoice(id: invoiceId) }) else { throw Missing() }
        return r
    }

    func ledger(of key: Ed25519PrivateKey) throws -> [LedgerEntry] {
        try store.read { r in
            guard let p = try r.purchase(key: key.publicKey.purchaseKeyText) else { return [] }
            return try r.ledger(purchaseId: p.id)
        }
    }

    struct Missing: Error {}
}

extension RPCResponse {
    var invoice: Invoice? {
        if case .badgeInvoice(let invoice, _, _) = self { return invoice }
        return nil
    }
    var months: Int? {
        if case .badgeInvoice(_, _, let m) = self { return m }
        return nil
    }
    var credential: BadgeCredential? {
        if case .badgeCredential(let c, _, _, _) = self { return c }
        return nil
    }
    var statement: Statement? {
        if case .badgeCredential(_, let s, _, _) = self { return s }
        return nil
    }
    var receipt: String? {
        if case .badgeCredential(_, _, let r, _) = self { return r }
        return nil
    }
    var retryAfter: UInt32? {
        if case .error(_, _, let r) = self { return r }
        return nil
    }
}

extension PaymentHarness {
    /// The first column of each row of a query, as bytes: what no protocol method reads.
    func readBlobs(_ sql: String) throws -> [[UInt8]] {
        switch store {
        case let s as SQLiteBadgeStore: return try s.database.readBlobsForTesting(sql)
        case let p as PostgresBadgeStore: return try p.database.readBlobsForTesting(sql)
        default: throw Missing()
        }
    }
}
