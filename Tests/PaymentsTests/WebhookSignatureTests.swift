import BadgeCore
import Foundation
import Providers
import TestSupport
import Testing

/// `Stripe-Signature` and `BTCPay-Sig` checked against headers made by the independent
/// implementations (PyPI `stripe`, Python `hmac`) and fixed vectors made with those two (secret whsec_test at t 1700000000; secret btcpaysecret).
@Suite(.timeLimit(.minutes(5))) struct WebhookSignatureTests {
    let fake: FakePayments
    init() throws { fake = try FakePayments() }

    let body = #"{"id":"evt_test","object":"event"}"#
    var now: Timestamp { Timestamp(seconds: Int64(Date().timeIntervalSince1970)) }

    @Test func theStripeVectorVerifies() throws {
        let webhook = StripeWebhook(secret: "whsec_test")
        let header = "t=1700000000,v1=c25fec335f20601dcb662f0e7c4944646158a9324bb6ed8b7f6ab126449f507a"
        try webhook.verify(body: Array(body.utf8), signatureHeader: header, now: Timestamp(seconds: 1_700_000_100))
        #expect(throws: WebhookRefusal.stale) {
            try webhook.verify(body: Array(body.utf8), signatureHeader: header, now: Timestamp(seconds: 1_700_000_301))
        }
    }

    @Test func headersMadeByTheStripeLibraryVerify() throws {
        let secret = "whsec_" + UUID().uuidString
        let header = try fake.stripeSignature(payload: body, secret: secret)
        try StripeWebhook(secret: secret).verify(body: Array(body.utf8), signatureHeader: header, now: now)
        // signed, but no event type: refused as malformed
        #expect(throws: WebhookRefusal.malformedEvent("no type")) {
            try StripeWebhook(secret: secret).event(body: Array(body.utf8), signatureHeader: header, now: now)
        }
        let typed = #"{"id":"evt_1","object":"event","type":"customer.created","data":{"object":{}}}"#
        let event = try StripeWebhook(secret: secret).event(
            body: Array(typed.utf8), signatureHeader: try fake.stripeSignature(payload: typed, secret: secret), now: now)
        #expect(event == StripeEvent(id: "evt_1", settlement: .other(type: "customer.created")))
    }

    @Test func forgedTamperedAndStaleDeliveriesAreRefused() throws {
        let secret = "whsec_" + UUID().uuidString
        let webhook = StripeWebhook(secret: secret)
        let header = try fake.stripeSignature(payload: body, secret: secret)
        // another secret (a forger's)
        let forged = try fake.stripeSignature(payload: body, secret: "whsec_forger")
        #expect(throws: WebhookRefusal.signatureMismatch) { try webhook.verify(body: Array(body.utf8), signatureHeader: forged, now: now) }
        // one byte of the body changed
        var tampered = Array(body.utf8)
        tampered[10] ^= 1
        #expect(throws: WebhookRefusal.signatureMismatch) { try webhook.verify(body: tampered, signatureHeader: header, now: now) }
        // signed 301 s ago, beyond the 300 s tolerance; 299 s ago passes; the future passes (as in the library)
        let old = try fake.stripeSignature(payload: body, secret: secret, timestamp: Int(now.seconds) - 301)
        #expect(throws: WebhookRefusal.stale) { try webhook.verify(body: Array(body.utf8), signatureHeader: old, now: now) }
        let recent = try fake.stripeSignature(payload: body, secret: secret, timestamp: Int(now.seconds) - 299)
        try webhook.verify(body: Array(body.utf8), signatureHeader: recent, now: now)
        let future = try fake.stripeSignature(payload: body, secret: secret, timestamp: Int(now.seconds) + 600)
        try webhook.verify(body: Array(body.utf8), signatureHeader: future, now: now)
        // no header, no timestamp, no v1
        #expect(throws: WebhookRefusal.missingSignature) { try webhook.verify(body: Array(body.utf8), signatureHeader: nil, now: now) }
        let v1 = header.split(separator: ",").first { $0.hasPrefix("v1=") }!
        #expect(throws: WebhookRefusal.malformedSignature) { try webhook.verify(body: Array(body.utf8), signatureHeader: String(v1), now: now) }
        let t = header.split(separator: ",").first { $0.hasPrefix("t=") }!
        #expect(throws: WebhookRefusal.malformedSignature) { try webhook.verify(body: Array(body.utf8), signatureHeader: String(t), now: now) }
        #expect(throws: WebhookRefusal.malformedSignature) {
            try webhook.verify(body: Array(body.utf8), signatureHeader: "t=12x,\(v1)", now: now)
        }
    }

    /// While a secret is rolled, Stripe signs with both: any v1 may match, in any order, and
    /// v0 or unknown schemes are ignored; the first t wins.
    @Test func severalSignaturesAnyMatches() throws {
        let secret = "whsec_" + UUID().uuidString
        let webhook = StripeWebhook(secret: secret)
        let good = try fake.stripeSignature(payload: body, secret: secret)
        let other = try fake.stripeSignature(payload: body, secret: "whsec_old")
        func part(_ h: String, _ p: String) -> String { String(h.split(separator: ",").first { $0.hasPrefix(p) }!) }
        let combined = [part(good, "t="), part(other, "v1="), "v0=abcdef", "x9=zz", part(good, "v1=")].joined(separator: ",")
        try webhook.verify(body: Array(body.utf8), signatureHeader: combined, now: now)
        let onlyOther = [part(good, "t="), part(other, "v1="), "v0=" + part(good, "v1=").dropFirst(3)].joined(separator: ",")
        #expect(throws: WebhookRefusal.signatureMismatch) { try webhook.verify(body: Array(body.utf8), signatureHeader: onlyOther, now: now) }
        // a second, later t does not replace the first
        let twoTimes = part(good, "t=") + ",t=1," + part(good, "v1=")
        try webhook.verify(body: Array(body.utf8), signatureHeader: twoTimes, now: now)
    }

    @Test func theBTCPayVectorAndPythonHMACVerify() throws {
        let vector = #"{"deliveryId":"d1","type":"InvoiceSettled","invoiceId":"inv1"}"#
        let webhook = BTCPayWebhook(secret: "btcpaysecret")
        let delivery = try webhook.delivery(
            body: Array(vector.utf8),
            signatureHeader: "sha256=0890ff3e0fdd344b0373db430be5be4226dc82408954b45348bdf23107cfc4dd")
        #expect(delivery == BTCPayDelivery(eventId: "d1", type: "InvoiceSettled", invoiceId: "inv1", storeId: nil))

        let secret = "s-" + UUID().uuidString
        let redelivery = #"{"deliveryId":"d2","originalDeliveryId":"d1","isRedelivery":true,"type":"InvoiceExpired","invoiceId":"X","storeId":"S","timestamp":1}"#
        let header = try fake.btcpaySignature(payload: redelivery, secret: secret)
        let read = try BTCPayWebhook(secret: secret).delivery(body: Array(redelivery.utf8), signatureHeader: header)
        #expect(read == BTCPayDelivery(eventId: "d1", type: "InvoiceExpired", invoiceId: "X", storeId: "S"))
        var tampered = Array(redelivery.utf8)
        tampered[5] ^= 1
        #expect(throws: WebhookRefusal.signatureMismatch) { try BTCPayWebhook(secret: secret).delivery(body: tampered, signatureHeader: header) }
        #expect(throws: WebhookRefusal.signatureMismatch) {
            try BTCPayWebhook(secret: "other").delivery(body: Array(redelivery.utf8), signatureHeader: header)
        }
        #expect(throws: WebhookRefusal.malformedSignature) {
            try BTCPayWebhook(secret: secret).delivery(body: Array(redelivery.utf8), signatureHeader: "sha1=00")
        }
        #expect(throws: WebhookRefusal.missingSignature) { try BTCPayWebhook(secret: secret).delivery(body: [], signatureHeader: nil) }
    }
}
