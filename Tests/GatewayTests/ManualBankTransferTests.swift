import BadgeCore
import Crypto
import Foundation
import Gateway
import Handlers
import HTTPServer
import JSON
import Ledger
import OutsideHTTP
import Providers
import RequestAuth
import Schema
import Storage
import TestSupport
import Testing

/// A provider is its folder and one line of the catalog: the test-only manual bank transfer
/// (TestSupport/ManualBankTransfer), deployed from its section by the same registry `serve`
/// builds, is sold, settled and credited over real HTTP through the gateway — its invoice, its
/// webhook route and its settlement come from the registry alone.
@Suite(.timeLimit(.minutes(3))) struct ManualBankTransferTests {
    static let pool = WorkerPool(threads: 2, capacity: 64)
    let dir = TemporaryDirectory("bank-transfer")
    let secret = "bank-notices-" + UUID().uuidString

    @Test func anInvoiceItsSignedNoticeAndThePurchaseCreditedEndToEnd() throws {
        // The registry line: the catalog `serve` deploys from, and the test-only kind.
        let catalog = ProviderCatalog.deployed + [ManualBankTransfer.self]
        var section = BankTransferSettings()
        for (name, value) in [("iban", "DE89370400440532013000"), ("webhook_secret", secret)] {
            let key = try #require(BankTransferSettings.keys.first { $0.name == name })
            try key.read(&section, value)
        }
        let settings = section
        // a section without its secret is refused, naming the key, as a real provider's is
        var incomplete = settings
        incomplete.webhookSecret = nil
        let unsigned = incomplete
        #expect(throws: MissingProviderKey(section: "bank_transfer", key: "webhook_secret")) {
            try ProviderRegistry(catalog: catalog, settings: { $0 == "bank_transfer" ? unsigned : nil }, transport: { _ in URLSessionTransport() })
        }
        let registry = try ProviderRegistry(catalog: catalog, settings: { $0 == BankTransferSettings.section ? settings : nil },
                                            transport: { _ in URLSessionTransport() })

        let now: @Sendable () -> Timestamp = { Timestamp(seconds: Int64(Date().timeIntervalSince1970)) }
        let store = try SQLiteBadgeStore(path: dir.file("badges.sqlite"))
        try DefaultCatalog.seedIfEmpty(store, at: now())
        let service = BadgeService(store: store, issuer: CountingIssuer(), clock: now, providers: registry)
        let metrics = Metrics(openConnections: { 0 })
        let gateway = Gateway(service: service, authenticator: RequestAuthenticator(), pool: Self.pool, metrics: metrics,
                              accessLog: nil, clock: now, readiness: { .ready })
        #expect(gateway.routeNames["/webhooks/bank_transfer"] == "webhook_bank_transfer")
        let server = HTTPServer(configuration: HTTPServerConfiguration(
            host: "127.0.0.1", port: 0, timeouts: HTTPTimeouts(shutdownGrace: .seconds(2), timerResolution: .milliseconds(20)),
            loopCount: 1), responder: gateway)
        let port = try server.start()
        defer {
            server.shutdown()
            server.waitUntilStopped()
        }
        let base = "http://127.0.0.1:\(port)"
        func rpc(_ command: RPCCommand, by key: Ed25519PrivateKey) throws -> (status: Int, response: RPCResponse) {
            let body = RPCRequest(purchaseKey: key.publicKey.purchaseKeyText, command: command).json.serialized()
            let signed = try RequestSigner(key: key).sign(method: "POST", authority: "127.0.0.1:\(port)", path: "/rpc", body: body,
                                                           created: now())
            var headers = ["Content-Type": "application/json"]
            for field in signed.fields where field.name != "Host" { headers[field.name] = field.value }
            let (data, status) = try FakePayments.http("POST", base + "/rpc", body: Data(body), headers: headers)
            return (status, try RPCResponse(json: try JSONValue.parse([UInt8](data)), at: []))
        }
        func notice(_ body: String, signedWith key: String) throws -> (status: Int, text: String) {
            let header = BodyHMAC(secret: key).header(for: Array(body.utf8))
            let (data, status) = try FakePayments.http("POST", base + "/webhooks/bank_transfer", body: Data(body.utf8),
                                                       headers: ["Content-Type": "application/json", "Bank-Signature": header])
            return (status, String(decoding: data, as: UTF8.self))
        }

        // The invoice: by card, the one method the protocol lets the test provider take.
        let buyer = Ed25519PrivateKey()
        let asked = try rpc(.getBadgeInvoice(priceId: DefaultCatalog.supporterPriceId, offerId: nil,
                                             badgeInfo: BadgeInfo(badgeType: .supporter, badgeExpiry: now(), badgeExtra: ""),
                                             paymentVia: .card(provider: .stripe), upgrade: nil), by: buyer)
        guard asked.status == 200, case .badgeInvoice(let invoice, _, _) = asked.response else {
            Issue.record("\(asked)")
            return
        }
        let reference = ManualBankTransfer.reference(of: invoice.invoiceId)
        #expect(invoice.paymentTo == .card(provider: .stripe, url: "https://bank.test/transfer?reference=\(reference)"))
        let record = try #require(try store.read { try $0.invoice(id: invoice.invoiceId) })
        #expect(record.provider == "bank_transfer" && record.providerRef == reference && record.address == "DE89370400440532013000")
        let masterKey = SecureRandom.bytes(32)
        let early = try rpc(.purchaseBadge(masterKey: masterKey, payment: .invoice(invoiceId: invoice.invoiceId), upgrade: nil), by: buyer)
        #expect(early.status == 409 && early.response.errorCode == .paymentPending, "\(early)")

        // The bank's notice: refused unsigned by its secret, applied once when it is.
        let amount = CurrencyUnits.decimalText(minorUnits: invoice.amount, currency: invoice.currency)
        let body = #"{"id":"tr-1","type":"transfer.received","reference":"\#(reference)","orderId":"\#(invoice.invoiceId)","amount":"\#(amount)","currency":"\#(invoice.currency.uppercased())"}"#
        #expect(try notice(body, signedWith: "not-the-secret").status == 400)
        #expect(try store.read { try $0.invoice(id: invoice.invoiceId) }?.status == .open)
        let applied = try notice(body, signedWith: secret)
        #expect(applied.status == 200 && applied.text == #"{"status":"applied"}"#, "\(applied)")
        #expect(try notice(body, signedWith: secret).text == #"{"status":"duplicate"}"#)

        // The purchase credited: the payment's months, the first issued.
        let bought = try rpc(.purchaseBadge(masterKey: masterKey, payment: .invoice(invoiceId: invoice.invoiceId), upgrade: nil), by: buyer)
        guard bought.status == 200, case .badgeCredential(let credential, let statement, let receipt, _) = bought.response else {
            Issue.record("\(bought)")
            return
        }
        #expect(credential != nil && receipt != nil)
        #expect(statement.entries.map(\.entryType) == [.credit(.payment(invoiceId: invoice.invoiceId)), .debit(.badge)])
        let text = metrics.render()
        #expect(text.contains("badge_requests_total{route=\"webhook_bank_transfer\",command=\"\",result=\"applied\"} 1\n"), "\(text)")
        #expect(text.contains("badge_requests_total{route=\"webhook_bank_transfer\",command=\"\",result=\"refused\"} 1\n"))
    }
}
