import BadgeCore
import Crypto
import Foundation
import Glibc
import JSON
import Ledger
import Locking
import Schema
import TestSupport
import Testing

/// Issue 9's acceptance on the release binary with the fake Stripe and BTCPay over HTTP:
/// invoice (card, BTC, XMR) → signed webhook → purchaseBadge → a credential an independent
/// BBS implementation verifies, and the statement [+N payment, −1 badge]; refused webhooks,
/// concurrent deliveries, a kill -9 between webhook and purchase, provider outages.
@Suite(.serialized, .timeLimit(.minutes(5))) struct PaymentsEndToEndTests {
    static var binary: String { Repository.root.appendingPathComponent(".build/release/badge-service").path }

    let fake: FakePayments
    let data = TemporaryDirectory("payments-e2e")
    let stripeSecret = "whsec_e2e_" + UUID().uuidString
    let btcpaySecret = "btcpay-e2e-" + UUID().uuidString
    var config: String { data.file("badge-service.ini") }

    init() throws {
        fake = try FakePayments()
        let ini = """
        [stripe]
        secret_key = \(fake.stripeKey)
        webhook_secret = \(stripeSecret)
        api_url = \(fake.url)
        success_url = https://shop.test/thanks
        cancel_url = https://shop.test/cancelled
        timeout = 1
        max_response_bytes = 65536

        [btcpay]
        url = \(fake.url)
        api_key = \(fake.btcpayKey)
        store_id = \(fake.btcpayStore)
        webhook_secret = \(btcpaySecret)
        timeout = 1
        """
        try ini.write(toFile: config, atomically: true, encoding: .utf8)
        chmod(config, 0o600)
    }

    func start() throws -> ServiceProcess {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw ServiceProcess.Failure("no release binary at \(Self.binary): run `swift build -c release --product badge-service` (scripts/test does)")
        }
        return try ServiceProcess(data: data, arguments: ["--config", config], executable: Self.binary)
    }

    func invoiceCommand(_ via: JSONValue, offer: String? = nil) -> JSONValue {
        var command: JSONObject = ["type": "getBadgeInvoice", "priceId": "2170da16-66e5-481f-9c75-6949e2dd14e1",
                                   "badgeInfo": ["badgeType": "supporter", "badgeExpiry": "2027-01-05T00:00:00Z", "badgeExtra": ""],
                                   "paymentVia": via]
        if let offer { command["offerId"] = .string(offer) }
        return .object(command)
    }

    func purchaseCommand(_ invoiceId: String, master: [UInt8]) -> JSONValue {
        ["type": "purchaseBadge", "masterKey": .string(Base64URL.encode(master)),
         "payment": ["type": "invoice", "invoiceId": .string(invoiceId)]]
    }

    func postWebhook(_ service: ServiceProcess, _ provider: String, body: String, header: String?) throws -> HTTPReply {
        var headers = ["Content-Type": "application/json"]
        if let header { headers[provider == "stripe" ? "Stripe-Signature" : "BTCPay-Sig"] = header }
        return try HTTP.request("POST", service.url + "/webhooks/" + provider, body: Array(body.utf8), headers: headers)
    }

    func stripeEvent(id: String = "evt_" + UUID().uuidString, type: String, object: JSONValue) -> String {
        (["id": .string(id), "object": "event", "type": .string(type), "created": 1, "livemode": false,
          "data": ["object": object]] as JSONValue).text()
    }

    func issuerPublicKey(_ service: ServiceProcess) throws -> String {
        let json = try JSONValue.parse(try service.cli(["issuer", "show"]).stdout)
        let active = try #require(json["active"]?.numberValue?.exactInt)
        return try #require(json["keys"]?[String(active)]?.stringValue)
    }

    @Test func cardAndCoinsBuyABadgeEndToEnd() throws {
        var service = try start()
        let publicKey = try issuerPublicKey(service)
        for via: JSONValue in [["type": "card", "provider": "stripe"], ["type": "crypto", "currency": "btc"],
                               ["type": "crypto", "currency": "xmr"]] {
            let key = Ed25519PrivateKey()
            let master = SecureRandom.bytes(32)
            let offer = "29e35444-2f85-43fb-8933-16875e6d3776"  // 3 months, 1 free
            let made = try HTTP.rpc(service, HTTP.envelope(invoiceCommand(via, offer: offer), key: key), key: key)
            #expect(made.status == 200, "\(made.text)")
            guard case .badgeInvoice(let invoice, _, let months)? = made.response else { Issue.record("\(made.text)"); continue }
            #expect(months == 3 && invoice.amount == 1400 && invoice.currency == "usd")
            // the same request again: the same invoice
            #expect(try HTTP.rpc(service, HTTP.envelope(invoiceCommand(via, offer: offer), key: key), key: key).response == made.response)

            let purchase = HTTP.envelope(purchaseCommand(invoice.invoiceId, master: master), key: key)
            let pending = try HTTP.rpc(service, purchase, key: key)
            #expect(pending.status == 409 && pending.response?.errorCode == .paymentPending)
            #expect(pending.headers["retry-after"] != nil)

            let running = service
            let settle: @Sendable () throws -> HTTPReply
            if case .card = invoice.paymentTo {
                let reference = try #require(try fake.requests("stripe").last?["form"])["client_reference_id"]?.stringValue
                #expect(reference == invoice.invoiceId)
                // the session id is the last segment of the fake's payment page URL
                guard case .card(_, let url) = invoice.paymentTo else { continue }
                let cs = String(url.split(separator: "/").last!)
                let body = stripeEvent(type: "checkout.session.completed", object: [
                    "id": .string(cs), "object": "checkout.session", "client_reference_id": .string(invoice.invoiceId),
                    "amount_total": 1400, "currency": "usd", "payment_status": "paid", "payment_intent": "pi_e2e"])
                let header = try fake.stripeSignature(payload: body, secret: stripeSecret)
                // forged, tampered, stale: refused, nothing changes
                #expect(try postWebhook(service, "stripe", body: body, header: try fake.stripeSignature(payload: body, secret: "whsec_forged")).status == 400)
                #expect(try postWebhook(service, "stripe", body: body.replacingOccurrences(of: "1400", with: "1401"), header: header).status == 400)
                let stale = try fake.stripeSignature(payload: body, secret: stripeSecret, timestamp: Int(Date().timeIntervalSince1970) - 400)
                #expect(try postWebhook(service, "stripe", body: body, header: stale).status == 400)
                #expect(try postWebhook(service, "stripe", body: body, header: nil).status == 400)
                // a wrong amount and an unknown invoice settle nothing
                let wrong = stripeEvent(type: "checkout.session.completed", object: [
                    "id": .string(cs), "client_reference_id": .string(invoice.invoiceId), "amount_total": 1,
                    "currency": "usd", "payment_status": "paid"])
                #expect(try postWebhook(service, "stripe", body: wrong, header: try fake.stripeSignature(payload: wrong, secret: stripeSecret)).text
                        == #"{"status":"ignored"}"#)
                let unknown = stripeEvent(type: "checkout.session.completed", object: [
                    "id": "cs_test_unknown", "client_reference_id": "nope", "amount_total": 1400, "currency": "usd", "payment_status": "paid"])
                #expect(try postWebhook(service, "stripe", body: unknown, header: try fake.stripeSignature(payload: unknown, secret: stripeSecret)).text
                        == #"{"status":"ignored"}"#)
                #expect(try HTTP.rpc(service, purchase, key: key).response?.errorCode == .paymentPending)
                settle = { try postWebhook(running, "stripe", body: body, header: header) }
            } else {
                let ref = try #require(try fake.requests("btcpay").last { $0["method"]?.stringValue == "GET" && $0["path"]?.stringValue?.hasSuffix("payment-methods") == true }?["path"]?.stringValue)
                let btcpayId = String(ref.split(separator: "/").dropLast().last!)
                try fake.setBTCPayStatus(btcpayId, "Settled")
                let body = #"{"deliveryId":"\#(UUID().uuidString)","type":"InvoiceSettled","invoiceId":"\#(btcpayId)","storeId":"\#(fake.btcpayStore)"}"#
                let header = try fake.btcpaySignature(payload: body, secret: btcpaySecret)
                #expect(try postWebhook(service, "btcpay", body: body, header: try fake.btcpaySignature(payload: body, secret: "forged")).status == 400)
                #expect(try postWebhook(service, "btcpay", body: body + " ", header: header).status == 400)
                settle = { try postWebhook(running, "btcpay", body: body, header: header) }
            }
            #expect(try HTTP.rpc(service, purchase, key: key).response?.errorCode == .paymentPending)
            // the delivery, twenty times at once: settled once
            let replies = LockedValueBox<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 20) { _ in
                let text = (try? settle().text) ?? "failed"
                replies.withLock { $0.append(text) }
            }
            let texts = replies.withLock { $0 }
            #expect(texts.filter { $0 == #"{"status":"applied"}"# }.count == 1, "\(texts)")
            #expect(texts.filter { $0 == #"{"status":"duplicate"}"# }.count == 19)

            // kill -9 between the webhook and purchaseBadge loses nothing
            service.stop(SIGKILL)
            service = try start()

            let bought = try HTTP.rpc(service, purchase, key: key)
            #expect(bought.status == 200, "\(bought.text)")
            guard case .badgeCredential(let credential?, let statement, let receipt?, nil)? = bought.response else {
                Issue.record("\(bought.text)"); continue
            }
            #expect(statement.entries.map(\.changeMonths) == [3, -1])
            #expect(statement.entries.map(\.entryType) == [.credit(.payment(invoiceId: invoice.invoiceId)), .debit(.badge)])
            #expect(credential.masterKey == master)
            #expect(try BBSPeer.verify(publicKey: publicKey, credentials: [credential.json]) == ["valid"])
            // a repeat answers the same; another key is refused
            #expect(try HTTP.rpc(service, purchase, key: key).response == bought.response)
            let other = Ed25519PrivateKey()
            _ = try HTTP.rpc(service, HTTP.envelope(invoiceCommand(via), key: other), key: other)
            let stolen = try HTTP.rpc(service, HTTP.envelope(purchaseCommand(invoice.invoiceId, master: master), key: other), key: other)
            #expect(stolen.status == 409 && stolen.response?.errorCode == .receiptUsed)
            #expect(!receipt.isEmpty)
            let shown = try service.cli(["ledger", "show", key.publicKey.purchaseKeyText])
            #expect(shown.status == 0 && shown.stdout.contains(invoice.invoiceId))
        }
        // neither secrets nor webhook bodies reach the logs
        let logs = service.stderr + service.accessLog
        for secret in [fake.stripeKey, fake.btcpayKey, stripeSecret, btcpaySecret, "pi_e2e", "checkout.session"] {
            #expect(!logs.contains(secret), "\(secret) logged")
        }
        #expect(service.stop() == 0)
    }

    /// Pays a card invoice through the fake Stripe's signed webhook; the delivery's answer.
    func settleCard(_ service: ServiceProcess, _ invoice: Invoice, eventId: String = "evt_" + UUID().uuidString,
                    intent: String = "pi_" + UUID().uuidString) throws -> HTTPReply {
        guard case .card(_, let url) = invoice.paymentTo else { throw ServiceProcess.Failure("not a card invoice") }
        let body = stripeEvent(id: eventId, type: "checkout.session.completed", object: [
            "id": .string(String(url.split(separator: "/").last!)), "object": "checkout.session",
            "client_reference_id": .string(invoice.invoiceId), "amount_total": .number(JSONNumber(Int(invoice.amount))),
            "currency": "usd", "payment_status": "paid", "payment_intent": .string(intent)])
        return try postWebhook(service, "stripe", body: body, header: try fake.stripeSignature(payload: body, secret: stripeSecret))
    }

    /// The non-store upgrade (docs/protocol.md, Upgrades) over HTTP: 12 supporter months paid by
    /// card, converted into a legend month by an invoice priced net of the credit, its settlement
    /// debiting the old purchase `upgrade` once; every statement passes the client replica check.
    @Test func aSupporterPurchaseIsUpgradedToLegendByInvoice() throws {
        let service = try start()
        let card: JSONValue = ["type": "card", "provider": "stripe"]
        let old = Ed25519PrivateKey(), new = Ed25519PrivateKey()
        let made = try HTTP.rpc(service, HTTP.envelope(invoiceCommand(card, offer: "71bd8ad1-15c4-4735-b3d4-b12a670dfb7e"), key: old), key: old)
        guard case .badgeInvoice(let paid, _, 12)? = made.response else { Issue.record("\(made.text)"); return }
        #expect(try settleCard(service, paid).text == #"{"status":"applied"}"#)
        let bought = try HTTP.rpc(service, HTTP.envelope(purchaseCommand(paid.invoiceId, master: SecureRandom.bytes(32)), key: old), key: old)
        guard case .badgeCredential(_?, let oldStatement, let receipt?, nil)? = bought.response else { Issue.record("\(bought.text)"); return }
        #expect(checkLedger(oldStatement.entries, purchaseBadgeType: .supporter) == nil)
        let oldLast = try #require(oldStatement.entries.last)

        // The new key asks for a legend month, proving the old purchase by its receipt and signature.
        let message = UpgradeProof.signedMessage(fromPurchaseKey: old.publicKey.purchaseKeyText,
                                                 toPurchaseKey: new.publicKey.purchaseKeyText, receipt: receipt)
        let proof = UpgradeProof(fromPurchaseKey: old.publicKey.purchaseKeyText, receipt: receipt,
                                 receiptSignature: old.signature(for: message), balance: Balance(lastEntry: oldLast))
        let upgrade: JSONValue = ["type": "getBadgeInvoice", "priceId": "6a778279-753e-45db-8acc-0e382c1d054a",
                                  "badgeInfo": ["badgeType": "legend", "badgeExpiry": "2027-01-05T00:00:00Z", "badgeExtra": ""],
                                  "paymentVia": card, "upgrade": proof.json]
        let priced = try HTTP.rpc(service, HTTP.envelope(upgrade, key: new), key: new)
        #expect(priced.status == 200, "\(priced.text)")
        guard case .badgeInvoice(let invoice, .legend, 1)? = priced.response else { Issue.record("\(priced.text)"); return }
        #expect(invoice.price == 7000 && invoice.credit == 3850 && invoice.amount == 3150)
        #expect(try fake.requests("stripe").last?["form"]?["line_items[0][price_data][unit_amount]"]?.stringValue == "3150")
        // A forged signature (signed for another key) is receipt_invalid.
        let stranger = Ed25519PrivateKey()
        let forged = try HTTP.rpc(service, HTTP.envelope(upgrade, key: stranger), key: stranger)
        #expect(forged.status == 422 && forged.response?.errorCode == .receiptInvalid, "\(forged.text)")

        // Settled: applied once, a redelivery is a duplicate; the old ledger shows the upgrade debit.
        let eventId = "evt_" + UUID().uuidString
        #expect(try settleCard(service, invoice, eventId: eventId).text == #"{"status":"applied"}"#)
        #expect(try settleCard(service, invoice, eventId: eventId).text == #"{"status":"duplicate"}"#)
        let issue: JSONValue = ["type": "issueBadge", "balance": Balance(lastEntry: oldLast).json]
        let oldAfter = try HTTP.rpc(service, HTTP.envelope(issue, key: old), key: old)
        guard case .badgeCredential(_, let tail, nil, nil)? = oldAfter.response else { Issue.record("\(oldAfter.text)"); return }
        #expect(tail.entries.map(\.entryType) == [.debit(.upgrade(toPurchaseKey: new.publicKey.purchaseKeyText))])
        #expect(tail.entries.map(\.changeMonths) == [-11])
        #expect(checkLedger(tail.entries, after: oldLast, purchaseBadgeType: .supporter) == nil)

        // The new key's purchase: a legend month, its replica check holding.
        let legend = try HTTP.rpc(service, HTTP.envelope(purchaseCommand(invoice.invoiceId, master: SecureRandom.bytes(32)), key: new), key: new)
        guard case .badgeCredential(let credential?, let statement, _?, nil)? = legend.response else { Issue.record("\(legend.text)"); return }
        #expect(credential.badgeType == .legend)
        #expect(statement.entries.map(\.entryType) == [.credit(.payment(invoiceId: invoice.invoiceId)), .debit(.badge)])
        #expect(checkLedger(statement.entries, purchaseBadgeType: .legend) == nil)
        #expect(service.stop() == 0)
    }

    /// Stripe's partial refund and a lost dispute through the release binary (docs/protocol.md,
    /// Refunds and disputes): 12 months paid 4200, the first issued; 1000 refunded debits 2
    /// (rounded down), its redelivery nothing; a dispute holds, and lost debits the 9 left.
    @Test func aPartialRefundAndALostDisputeDebitTheMonthsEndToEnd() throws {
        let service = try start()
        let key = Ed25519PrivateKey()
        let made = try HTTP.rpc(service, HTTP.envelope(invoiceCommand(["type": "card", "provider": "stripe"],
                                                                      offer: "71bd8ad1-15c4-4735-b3d4-b12a670dfb7e"), key: key), key: key)
        guard case .badgeInvoice(let paid, _, 12)? = made.response else { Issue.record("\(made.text)"); return }
        let intent = "pi_" + UUID().uuidString
        #expect(try settleCard(service, paid, intent: intent).text == #"{"status":"applied"}"#)
        let bought = try HTTP.rpc(service, HTTP.envelope(purchaseCommand(paid.invoiceId, master: SecureRandom.bytes(32)), key: key), key: key)
        guard case .badgeCredential(_?, let statement, _?, nil)? = bought.response else { Issue.record("\(bought.text)"); return }
        let last = try #require(statement.entries.last)
        func deliver(_ type: String, _ object: JSONValue, id: String = "evt_" + UUID().uuidString) throws -> String {
            let body = stripeEvent(id: id, type: type, object: object)
            return try postWebhook(service, "stripe", body: body, header: try fake.stripeSignature(payload: body, secret: stripeSecret)).text
        }
        let charge: JSONValue = ["id": "ch_e2e", "object": "charge", "payment_intent": .string(intent), "amount": 4200,
                                 "amount_refunded": 1000, "refunded": false]
        let refundId = "evt_" + UUID().uuidString
        #expect(try deliver("charge.refunded", charge, id: refundId) == #"{"status":"applied"}"#)
        #expect(try deliver("charge.refunded", charge, id: refundId) == #"{"status":"duplicate"}"#)
        #expect(try deliver("charge.refunded", charge) == #"{"status":"ignored"}"#)
        let dispute: JSONValue = ["id": "dp_e2e", "object": "dispute", "charge": "ch_e2e", "payment_intent": .string(intent),
                                  "amount": 4200, "status": "needs_response"]
        #expect(try deliver("charge.dispute.created", dispute) == #"{"status":"applied"}"#)
        // Inside the issued period the held purchase still answers its credential.
        let issue: JSONValue = ["type": "issueBadge", "balance": Balance(lastEntry: last).json]
        let held = try HTTP.rpc(service, HTTP.envelope(issue, key: key), key: key)
        guard case .badgeCredential(_?, let partly, nil, nil)? = held.response else { Issue.record("\(held.text)"); return }
        #expect(partly.entries.map(\.changeMonths) == [-2] && partly.entries.last?.entryType == .debit(.refund))
        var lost = dispute
        if case .object(var o) = lost { o["status"] = "lost"; lost = .object(o) }
        #expect(try deliver("charge.dispute.closed", lost) == #"{"status":"applied"}"#)
        let after = try HTTP.rpc(service, HTTP.envelope(issue, key: key), key: key)
        guard case .badgeCredential(_, let tail, nil, nil)? = after.response else { Issue.record("\(after.text)"); return }
        #expect(tail.entries.map(\.changeMonths) == [-2, -9] && tail.entries.last?.balanceMonths == 0)
        #expect(checkLedger(tail.entries, after: last, purchaseBadgeType: .supporter) == nil)
        #expect(service.stop() == 0)
    }

    @Test func aProviderOutageIsAnsweredProviderUnavailableAndTheNextAttemptWorks() throws {
        let service = try start()
        for (provider, via) in [("stripe", ["type": "card", "provider": "stripe"] as JSONValue), ("btcpay", ["type": "crypto", "currency": "xmr"])] {
            let key = Ed25519PrivateKey()
            for mode in ["500", "garbage", "hang", "huge"] {
                try fake.setMode(provider, mode)
                let reply = try HTTP.rpc(service, HTTP.envelope(invoiceCommand(via), key: key), key: key)
                #expect(reply.status == 503, "\(provider) \(mode): \(reply.text)")
                #expect(reply.response?.errorCode == .providerUnavailable)
                #expect(reply.headers["retry-after"] == "60")
            }
            try fake.setMode(provider, "ok")
            let works = try HTTP.rpc(service, HTTP.envelope(invoiceCommand(via), key: key), key: key)
            #expect(works.status == 200, "\(works.text)")
        }
        // Every call to a provider is counted by how it ended.
        let metrics = try HTTP.request("GET", service.url + "/metrics").text
        for provider in ["stripe", "btcpay"] {
            for line in ["outcome=\"5xx\"} 1", "outcome=\"no_answer\"} 1", "outcome=\"too_large\"} 1", "outcome=\"2xx\"}"] {
                #expect(metrics.contains("badge_store_calls_total{store=\"\(provider)\",\(line)"), "\(provider) \(line)")
            }
        }
        #expect(service.stop() == 0)
        #expect(!service.stderr.contains(fake.stripeKey) && !service.stderr.contains(fake.btcpayKey))
    }

    @Test func anIncompletePaymentSectionStopsTheStartInOneLine() throws {
        // everything but the webhook secret: the service could take payments it would never settle
        try "[stripe]\nsecret_key = sk_test_x\nsuccess_url = https://a.test/ok\ncancel_url = https://a.test/no\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        chmod(config, 0o600)
        let result = try CLIResult.run(["serve", "--listen", "127.0.0.1:0", "--config", config, "--data", data.file("d")],
                                       executable: Self.binary)
        #expect(result.status != 0)
        #expect(result.stderr.contains("[stripe] webhook_secret is required"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: data.file("d")))
    }
}
