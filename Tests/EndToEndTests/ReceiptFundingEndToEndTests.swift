import BadgeCore
import Crypto
import Foundation
import JSON
import Ledger
import Schema
import TestSupport
import Testing

/// purchaseBadge funded by a recovery receipt (docs/protocol.md, Funding by receipt) on the
/// release binary over HTTP: the receipt of a purchase bought with coins (BTCPay, the fake
/// provider) moves its unissued months to a new key. In the payments suite, which owns the fake.
extension PaymentsEndToEndTests {
    /// Buys 3 months (one free) with BTC under `key`: invoice, settlement webhook, purchaseBadge.
    /// Returns the purchase's answer.
    func buyWithCoins(_ service: ServiceProcess, key: Ed25519PrivateKey, master: [UInt8]) throws -> RPCResponse {
        let via: JSONValue = ["type": "crypto", "currency": "btc"]
        let made = try HTTP.rpc(service, HTTP.envelope(invoiceCommand(via, offer: "29e35444-2f85-43fb-8933-16875e6d3776"), key: key), key: key)
        guard case .badgeInvoice(let invoice, _, _)? = made.response else { throw ServiceProcess.Failure("invoice: \(made.text)") }
        let path = try #require(try fake.requests("btcpay").last { $0["method"]?.stringValue == "GET" && $0["path"]?.stringValue?.hasSuffix("payment-methods") == true }?["path"]?.stringValue)
        let btcpayId = String(path.split(separator: "/").dropLast().last!)
        try fake.setBTCPayStatus(btcpayId, "Settled")
        let body = #"{"deliveryId":"\#(UUID().uuidString)","type":"InvoiceSettled","invoiceId":"\#(btcpayId)","storeId":"\#(fake.btcpayStore)"}"#
        let settled = try postWebhook(service, "btcpay", body: body, header: try fake.btcpaySignature(payload: body, secret: btcpaySecret))
        #expect(settled.text == #"{"status":"applied"}"#)
        let bought = try HTTP.rpc(service, HTTP.envelope(purchaseCommand(invoice.invoiceId, master: master), key: key), key: key)
        return try #require(bought.response)
    }

    func fundByReceipt(_ service: ServiceProcess, _ receipt: String, key: Ed25519PrivateKey,
                       master: [UInt8] = SecureRandom.bytes(32)) throws -> HTTPReply {
        try HTTP.rpc(service, HTTP.envelope(["type": "purchaseBadge", "masterKey": .string(Base64URL.encode(master)),
                                             "payment": ["type": "receipt", "receipt": .string(receipt)]], key: key), key: key)
    }

    @Test func aRecoveryReceiptMovesTheUnissuedMonthsToANewKey() throws {
        let service = try start()
        let publicKey = try issuerPublicKey(service)
        let old = Ed25519PrivateKey()
        guard case .badgeCredential(_, let bought, let receipt?, _) = try buyWithCoins(service, key: old, master: SecureRandom.bytes(32)) else {
            Issue.record("the coin purchase gave no receipt")
            return
        }
        #expect(bought.entries.map(\.balanceMonths) == [3, 2])

        // A new device: a fresh key presents the receipt.
        let key = Ed25519PrivateKey(), master = SecureRandom.bytes(32)
        let moved = try fundByReceipt(service, receipt, key: key, master: master)
        #expect(moved.status == 200, "\(moved.text)")
        guard case .badgeCredential(let credential?, let statement, let fresh?, nil)? = moved.response else {
            Issue.record("not a credential with a receipt: \(moved.text)")
            return
        }
        #expect(statement.previousEntryId == nil)
        #expect(statement.entries.map(\.entryType) == [.credit(.transferIn(fromPurchaseKey: old.publicKey.purchaseKeyText)), .debit(.badge)])
        #expect(statement.entries.map(\.balanceMonths) == [2, 1])
        #expect(checkLedger(statement.entries, purchaseBadgeType: .supporter) == nil)
        #expect(credential.masterKey == master && credential.badgeType == .supporter)
        #expect(try BBSPeer.verify(publicKey: publicKey, credentials: [credential.json]) == ["valid"])
        #expect(fresh != receipt && !fresh.isEmpty)

        // The old key's statement ends with the transferOut, and its replica re-derives it.
        let oldView = try HTTP.rpc(service, HTTP.envelope(["type": "issueBadge", "balance": ["lastEntry": bought.entries[1].json]], key: old), key: old)
        let oldRows = try #require(oldView.response?.statement?.entries)
        #expect(oldRows.map(\.entryType) == [.debit(.transferOut(toPurchaseKey: key.publicKey.purchaseKeyText))])
        #expect(oldRows.map(\.changeMonths) == [-2])
        #expect(checkLedger(bought.entries + oldRows, purchaseBadgeType: .supporter) == nil)

        // The same request again answers the same; the retired receipt from any other key is
        // receipt_used; a receipt never issued is receipt_invalid.
        #expect(try fundByReceipt(service, receipt, key: key, master: master).body == moved.body)
        let stolen = try fundByReceipt(service, receipt, key: Ed25519PrivateKey())
        #expect(stolen.status == 409 && stolen.response?.errorCode == .receiptUsed)
        let invented = try fundByReceipt(service, Base64URL.encode(SecureRandom.bytes(32)), key: Ed25519PrivateKey())
        #expect(invented.status == 422 && invented.response?.errorCode == .receiptInvalid)

        // The fresh receipt moves them on once more.
        let third = Ed25519PrivateKey()
        let again = try fundByReceipt(service, fresh, key: third)
        #expect(again.response?.statement?.entries.map(\.balanceMonths) == [1, 0])
        // Receipts never reach the logs.
        let logs = service.stderr + service.accessLog
        for secret in [receipt, fresh] { #expect(!logs.contains(secret)) }
        #expect(service.stop() == 0)
    }
}
