import BadgeCore
import Crypto
import Foundation
import Glibc
import JSON
import Schema
import TestSupport
import Testing

/// Issue 33, item 4 on the built binary: a restore does not re-spend. The restored data
/// directory serves only once acknowledged, and `reconcile` credits from the Stripe and BTCPay
/// fakes' lists exactly the settlements made after the backup, once.
extension OperationsTests {
    /// A configuration with both payment providers at `fake`.
    func paymentsConfiguration(_ fake: FakePayments, stripeSecret: String, btcpaySecret: String) throws -> String {
        let file = dir.file("payments.ini")
        try """
        [stripe]
        secret_key = \(fake.stripeKey)
        webhook_secret = \(stripeSecret)
        api_url = \(fake.url)
        success_url = https://shop.test/thanks
        cancel_url = https://shop.test/cancelled
        timeout = 1

        [btcpay]
        url = \(fake.url)
        api_key = \(fake.btcpayKey)
        store_id = \(fake.btcpayStore)
        webhook_secret = \(btcpaySecret)
        timeout = 1
        """.write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        return file
    }

    @Test func aRestoreServesOnceAcknowledgedAndReconcileCreditsWhatWasSettledSinceTheBackupOnce() throws {
        let fake = try FakePayments()
        let stripeSecret = "whsec_restore_" + UUID().uuidString, btcpaySecret = "btcpay-restore-" + UUID().uuidString
        let config = try paymentsConfiguration(fake, stripeSecret: stripeSecret, btcpaySecret: btcpaySecret)
        let data = dir.file("badge-data"), backup = dir.file("backup-1")
        var service = try ServiceProcess(data: dir, arguments: ["--config", config])
        func run(_ arguments: [String]) throws -> CLIResult {
            try CLIResult.run(arguments + ["--config", config, "--data", data], in: dir.url)
        }

        /// An invoice of 3 months by `via` and its provider reference (the session or BTCPay invoice id).
        func invoice(_ key: Ed25519PrivateKey, _ via: JSONValue) throws -> (Invoice, String) {
            let command: JSONValue = ["type": "getBadgeInvoice", "priceId": "2170da16-66e5-481f-9c75-6949e2dd14e1",
                                      "offerId": "29e35444-2f85-43fb-8933-16875e6d3776", "paymentVia": via,
                                      "badgeInfo": ["badgeType": "supporter", "badgeExpiry": "2027-01-05T00:00:00Z", "badgeExtra": ""]]
            let made = try HTTP.rpc(service, HTTP.envelope(command, key: key), key: key)
            guard case .badgeInvoice(let invoice, _, 3)? = made.response else { throw ServiceProcess.Failure(made.text) }
            switch invoice.paymentTo {
            case .card(_, let url): return (invoice, String(url.split(separator: "/").last!))
            case .crypto:
                let path = try fake.requests("btcpay").last { $0["path"]?.stringValue?.hasSuffix("/payment-methods") == true }?["path"]?.stringValue
                return (invoice, String(try #require(path).split(separator: "/").dropLast().last!))
            }
        }
        /// Pays at the fake Stripe (for `amount`) and delivers the signed webhook.
        func payByCard(_ invoice: Invoice, _ session: String, amount: Int = 1400) throws -> String {
            let intent = "pi_" + UUID().uuidString
            try fake.setStripeSession(session, paymentIntent: intent, amountTotal: amount)
            let body = (["id": .string("evt_" + UUID().uuidString), "object": "event", "type": "checkout.session.completed",
                         "data": ["object": ["id": .string(session), "object": "checkout.session", "status": "complete",
                                             "client_reference_id": .string(invoice.invoiceId), "amount_total": .number(JSONNumber(amount)),
                                             "currency": "usd", "payment_status": "paid", "payment_intent": .string(intent)]]] as JSONValue).text()
            let header = try fake.stripeSignature(payload: body, secret: stripeSecret)
            return try HTTP.request("POST", service.url + "/webhooks/stripe", body: Array(body.utf8),
                                    headers: ["Content-Type": "application/json", "Stripe-Signature": header]).text
        }
        func payByCoin(_ btcpayId: String) throws -> String {
            try fake.setBTCPayStatus(btcpayId, "Settled")
            let body = #"{"deliveryId":"\#(UUID().uuidString)","type":"InvoiceSettled","invoiceId":"\#(btcpayId)","storeId":"\#(fake.btcpayStore)"}"#
            return try HTTP.request("POST", service.url + "/webhooks/btcpay", body: Array(body.utf8),
                                    headers: ["Content-Type": "application/json",
                                              "BTCPay-Sig": try fake.btcpaySignature(payload: body, secret: btcpaySecret)]).text
        }
        func purchase(_ key: Ed25519PrivateKey, _ invoice: Invoice, _ master: [UInt8]) throws -> HTTPReply {
            try HTTP.rpc(service, HTTP.envelope(["type": "purchaseBadge", "masterKey": .string(Base64URL.encode(master)),
                                                 "payment": ["type": "invoice", "invoiceId": .string(invoice.invoiceId)]], key: key), key: key)
        }
        let applied = #"{"status":"applied"}"#
        let card: JSONValue = ["type": "card", "provider": "stripe"], coin: JSONValue = ["type": "crypto", "currency": "btc"]

        // Before the backup: one invoice paid and credited; three left open.
        let before = Ed25519PrivateKey(), cardKey = Ed25519PrivateKey(), coinKey = Ed25519PrivateKey(), shortKey = Ed25519PrivateKey()
        let master = SecureRandom.bytes(32)
        let (paid, paidSession) = try invoice(before, card)
        #expect(try payByCard(paid, paidSession) == applied)
        #expect(try purchase(before, paid, master).status == 200)
        let (cardInvoice, cardSession) = try invoice(cardKey, card)
        let (coinInvoice, coinId) = try invoice(coinKey, coin)
        let (shortInvoice, shortSession) = try invoice(shortKey, card)

        let made = try service.cli(["backup", backup, "--config", config])
        #expect(made.status == 0, "\(made.stderr)")
        let record = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: backup + "/backup.json"))))
        let backupTime = try #require(record["backupTime"]?.stringValue)
        #expect(record["backupTimeSeconds"]?.numberValue?.exactInt.map { Timestamp(seconds: Int64($0)) } == RFC3339.parse(backupTime))

        // After the backup: two settled and the card one credited, one paid for another amount
        // (settling nothing), and an invoice made and paid that the backup never saw.
        #expect(try payByCard(cardInvoice, cardSession) == applied)
        let firstAnswer = try purchase(cardKey, cardInvoice, master)
        #expect(firstAnswer.status == 200, "\(firstAnswer.text)")
        #expect(try payByCoin(coinId) == applied)
        #expect(try payByCard(shortInvoice, shortSession, amount: 1) == #"{"status":"ignored"}"#)
        let (lateInvoice, lateSession) = try invoice(Ed25519PrivateKey(), card)
        #expect(try payByCard(lateInvoice, lateSession) == applied)
        #expect(service.stop() == 0)

        // The restore: the backup, copied, becomes the data directory.
        try FileManager.default.moveItem(atPath: data, toPath: dir.file("badge-data.before-restore"))
        try FileManager.default.copyItem(atPath: backup, toPath: data)
        let refused = try runBriefly(["serve", "--listen", "127.0.0.1:0", "--config", config, "--data", data])
        #expect(refused.status == 1, "\(refused.stderr)")
        let lines = refused.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(data + "/backup.json") && lines[0].contains(backupTime)
                && lines[0].contains("badge-service serve --restored") && lines[0].contains("reconcile"), "\(refused.stderr)")

        // A provider down: one line, exit 1, nothing applied (Stripe's list was read, BTCPay's failed).
        try fake.setMode("btcpay", "500")
        let outage = try run(["reconcile"])
        #expect(outage.status == 1 && outage.stdout.isEmpty, "\(outage.stdout)")
        #expect(outage.stderr.split(separator: "\n").count == 1 && outage.stderr.contains("btcpay: provider unavailable")
                && outage.stderr.contains("nothing was applied"), "\(outage.stderr)")
        try fake.setMode("btcpay", "ok")
        // A dry run says what it would apply and writes nothing.
        let dry = try run(["reconcile", "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("would apply stripe payment \(cardSession) to invoice \(cardInvoice.invoiceId): invoice settled"), "\(dry.stdout)")

        service = try ServiceProcess(data: dir, arguments: ["--config", config, "--restored"])
        for expected in ["the backup made at \(backupTime)", "recovery point", "acknowledged in \(data)/restored-from-backup.json",
                         "badge-service reconcile --since \(backupTime)", "codes created after \(backupTime) are unknown",
                         "codes redeemed after it can be redeemed again"] {
            #expect(service.stderr.contains(expected), "\(expected): \(service.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: data + "/backup.json"))
        #expect(try purchase(cardKey, cardInvoice, master).response?.errorCode == .paymentPending)

        // reconcile, its --since the backup's time: exactly the settlements made after the backup, once.
        let first = try service.cli(["reconcile", "--config", config])
        #expect(first.status == 0, "\(first.stderr)")
        let appliedLines = first.stdout.split(separator: "\n").filter { $0.hasPrefix("applied ") }.map(String.init).sorted()
        #expect(appliedLines == ["applied btcpay payment \(coinId) to invoice \(coinInvoice.invoiceId): invoice settled",
                                 "applied stripe payment \(cardSession) to invoice \(cardInvoice.invoiceId): invoice settled"], "\(first.stdout)")
        #expect(first.stdout.contains("reconciling the settlements since \(backupTime)"), "\(first.stdout)")
        // Each list is read from before the backup by as long as an invoice made then may still settle.
        let madeAt = try #require(RFC3339.parse(backupTime))
        let stripeFrom = RFC3339.format(madeAt.adding(seconds: -(3600 + 3 * 86_400)))
        let btcpayFrom = RFC3339.format(madeAt.adding(seconds: -(3600 + 86_400)))
        #expect(first.stdout.contains("stripe: 4 settled since \(stripeFrom) listed") && first.stdout.contains(
            "1 applied, 1 already present, 1 not matching their invoice, 1 not in this database, 0 of other applications"), "\(first.stdout)")
        #expect(first.stdout.contains("btcpay: 1 settled since \(btcpayFrom) listed") && first.stdout.contains(
            "1 applied, 0 already present, 0 not matching their invoice, 0 not in this database"), "\(first.stdout)")
        let warnings = first.stderr.split(separator: "\n")
        #expect(warnings.count == 2, "\(first.stderr)")
        #expect(warnings.contains { $0.contains("stripe payment \(shortSession) was settled for another order, amount or currency than its invoice \(shortInvoice.invoiceId)") },
                "\(first.stderr)")
        #expect(warnings.contains { $0.contains("stripe payment \(lateSession) settled order \(lateInvoice.invoiceId), but this database holds no invoice") },
                "\(first.stderr)")
        // never a key, a receipt or a secret
        for secret in [cardKey.publicKey.purchaseKeyText, Base64URL.encode(master), fake.stripeKey, fake.btcpayKey, stripeSecret] {
            #expect(!(first.stdout + first.stderr).contains(secret))
        }

        // The purchases get their months: the same credential, statement and receipt as before the restore.
        let again = try purchase(cardKey, cardInvoice, master)
        #expect(again.status == 200, "\(again.text)")
        #expect(again.response?.statement?.entries.map(\.changeMonths) == [3, -1])
        #expect(again.response?.credential?.masterKey == master)
        guard case .badgeCredential(_, _, let receipt?, _)? = again.response, case .badgeCredential(_, _, let firstReceipt?, _)? = firstAnswer.response
        else { Issue.record("\(again.text)"); return }
        #expect(receipt == firstReceipt)
        let coinBought = try purchase(coinKey, coinInvoice, master)
        #expect(coinBought.status == 200 && coinBought.response?.statement?.entries.map(\.entryType)
                == [.credit(.payment(invoiceId: coinInvoice.invoiceId)), .debit(.badge)], "\(coinBought.text)")
        #expect(try purchase(shortKey, shortInvoice, master).response?.errorCode == .paymentPending)

        // A second reconcile changes nothing.
        let second = try service.cli(["reconcile", "--config", config])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(!second.stdout.contains("applied stripe") && !second.stdout.contains("applied btcpay"), "\(second.stdout)")
        #expect(second.stdout.contains("0 applied, 2 already present, 1 not matching their invoice, 1 not in this database"), "\(second.stdout)")
        #expect(second.stdout.contains("0 applied, 1 already present, 0 not matching"), "\(second.stdout)")
        #expect(service.stop() == 0)

        // Acknowledged once, the restored directory serves without --restored from then on.
        let later = try ServiceProcess(data: dir, arguments: ["--config", config])
        #expect(!later.stderr.contains("restore"), "\(later.stderr)")
        #expect(later.stop() == 0)
    }

    /// Without a recorded backup, reconcile needs --since; a backup kept inside the data directory
    /// (the pre-migration ones under backups/) does not make it a restore.
    @Test func reconcileNeedsATimeAndOnlyATopLevelBackupRecordMarksARestore() throws {
        let fake = try FakePayments()
        let config = try paymentsConfiguration(fake, stripeSecret: "whsec_x", btcpaySecret: "btcpay-x")
        let data = dir.file("badge-data")
        #expect(try CLIResult.run(["init", "--config", config, "--data", data], in: dir.url).status == 0)
        try FileManager.default.createDirectory(atPath: data + "/backups", withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        #expect(try CLIResult.run(["backup", data + "/backups/before-migration", "--config", config, "--data", data], in: dir.url).status == 0)
        #expect(FileManager.default.fileExists(atPath: data + "/backups/before-migration/backup.json"))
        let refused = try CLIResult.run(["reconcile", "--config", config, "--data", data], in: dir.url)
        #expect(refused.status == 1 && refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("records no backup it was restored from") && refused.stderr.contains("--since"), "\(refused.stderr)")
        for bad in ["yesterday", "2026-13-01T00:00:00Z", "-5"] {
            let usage = try CLIResult.run(["reconcile", "--since", bad, "--config", config, "--data", data], in: dir.url)
            #expect(usage.status == 2 && usage.stderr.contains("--since must be"), "\(bad): \(usage.stderr)")
        }
        for since in ["2026-11-30T02:00:00Z", "1796004000"] {
            let ran = try CLIResult.run(["reconcile", "--since", since, "--config", config, "--data", data], in: dir.url)
            #expect(ran.status == 0 && ran.stdout.contains("reconciling the settlements since 2026-11-30T02:00:00Z"), "\(ran.stderr)")
        }
        // serve does not take the data directory for a restore
        let service = try ServiceProcess(data: dir, arguments: ["--config", config])
        #expect(!service.stderr.contains("restore"), "\(service.stderr)")
        #expect(service.stop() == 0)
        // without a payment section there is nothing to reconcile
        let bare = try CLIResult.run(["reconcile", "--since", "1796004000", "--data", data], in: dir.url)
        #expect(bare.status == 1 && bare.stderr.contains("neither [stripe] nor [btcpay] is configured"), "\(bare.stderr)")
    }
}

extension PostgresEndToEndTests {
    /// reconcile on PostgreSQL: a card payment whose webhook never came is credited once.
    @Test func reconcileCreditsAMissedSettlementOnPostgreSQLOnce() throws {
        let cluster = PostgresCluster.shared
        let fake = try FakePayments()
        let config = try configuration(cluster, try cluster.makeDatabase())
        let payments = "\n[stripe]\nsecret_key = \(fake.stripeKey)\nwebhook_secret = whsec_pg\napi_url = \(fake.url)\n"
            + "success_url = https://shop.test/thanks\ncancel_url = https://shop.test/cancelled\ntimeout = 1\n"
        try (try String(contentsOfFile: config, encoding: .utf8) + payments).write(toFile: config, atomically: true, encoding: .utf8)
        chmod(config, 0o600)
        let service = try ServiceProcess(data: TemporaryDirectory("e2e-pg-reconcile"), arguments: ["--config", config])
        let key = Ed25519PrivateKey(), master = SecureRandom.bytes(32)
        let command: JSONValue = ["type": "getBadgeInvoice", "priceId": "2170da16-66e5-481f-9c75-6949e2dd14e1",
                                  "paymentVia": ["type": "card", "provider": "stripe"],
                                  "badgeInfo": ["badgeType": "supporter", "badgeExpiry": "2027-01-05T00:00:00Z", "badgeExtra": ""]]
        let made = try HTTP.rpc(service, HTTP.envelope(command, key: key), key: key)
        guard case .badgeInvoice(let invoice, _, _)? = made.response, case .card(_, let url) = invoice.paymentTo else {
            Issue.record("\(made.text)"); return
        }
        let session = String(url.split(separator: "/").last!)
        try fake.setStripeSession(session, paymentIntent: "pi_pg")
        let since = String(Int(Date().timeIntervalSince1970) - 60)
        let first = try service.cli(["reconcile", "--since", since, "--config", config])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("applied stripe payment \(session) to invoice \(invoice.invoiceId): invoice settled"), "\(first.stdout)")
        let purchase: JSONValue = ["type": "purchaseBadge", "masterKey": .string(Base64URL.encode(master)),
                                   "payment": ["type": "invoice", "invoiceId": .string(invoice.invoiceId)]]
        let bought = try HTTP.rpc(service, HTTP.envelope(purchase, key: key), key: key)
        #expect(bought.status == 200 && bought.response?.credential?.masterKey == master, "\(bought.text)")
        let second = try service.cli(["reconcile", "--since", since, "--config", config])
        #expect(second.status == 0 && second.stdout.contains("stripe: 1 settled since") && second.stdout.contains("0 applied, 1 already present"),
                "\(second.stdout)\(second.stderr)")
        #expect(service.stop() == 0)
    }
}
