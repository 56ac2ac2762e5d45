import BadgeCore
import Foundation
import JSON
import Payments
import TestSupport
import Testing

/// The Stripe and BTCPay clients over real HTTP against the fakes, including their failures.
@Suite(.timeLimit(.minutes(5))) struct ProviderClientTests {
    let fake: FakePayments
    init() throws { fake = try FakePayments() }

    var api: OutsideAPI { OutsideAPI(baseURL: fake.url + "/", timeoutSeconds: 1.5, maxResponseBytes: 64 * 1024) }
    var stripe: StripeCheckout {
        StripeCheckout(account: StripeAccount(secretKey: fake.stripeKey, successURL: "https://shop.test/ok?a=1&b=2",
                                              cancelURL: "https://shop.test/no", api: api))
    }
    var btcpay: BTCPayInvoices { BTCPayInvoices(account: BTCPayAccount(apiKey: fake.btcpayKey, storeId: fake.btcpayStore, api: api)) }
    let t = Timestamp(seconds: 1_790_000_000)

    func request(_ method: PaymentMethod = .card, id: String = "inv_" + UUID().uuidString) -> PaymentRequest {
        PaymentRequest(invoiceId: id, amount: 1400, currency: "usd", method: method, description: "SimpleX supporter badge, 3 months",
                       createdAt: t, expiresAt: t.adding(seconds: 3600))
    }

    @Test func aCheckoutSessionIsCreatedFormEncodedWithTheInvoiceAsReference() throws {
        let r = request()
        let destination = try stripe.createPayment(r)
        #expect(destination.providerRef.hasPrefix("cs_test_"))
        #expect(destination.url == "https://checkout.stripe.test/c/pay/\(destination.providerRef)")
        let seen = try #require(try fake.requests("stripe").last)
        #expect(seen["contentType"]?.stringValue == "application/x-www-form-urlencoded")
        #expect(seen["idempotencyKey"]?.stringValue == r.invoiceId)
        let form = try #require(seen["form"]?.objectValue)
        #expect(form["mode"]?.stringValue == "payment")
        #expect(form["client_reference_id"]?.stringValue == r.invoiceId)
        #expect(form["line_items[0][price_data][unit_amount]"]?.stringValue == "1400")
        #expect(form["line_items[0][price_data][currency]"]?.stringValue == "usd")
        #expect(form["line_items[0][price_data][product_data][name]"]?.stringValue == "SimpleX supporter badge, 3 months")
        #expect(form["line_items[0][quantity]"]?.stringValue == "1")
        #expect(form["expires_at"]?.stringValue == String(t.seconds + 3600))
        #expect(form["success_url"]?.stringValue == "https://shop.test/ok?a=1&b=2")
        // the same invoice again is the same session (Idempotency-Key)
        #expect(try stripe.createPayment(r) == destination)
    }

    /// A redirect is not followed (it would carry the secret key elsewhere) and an error page over
    /// the cap is an outage like any other.
    @Test(arguments: ["500", "garbage", "huge", "hugeerror", "hang", "redirect"])
    func anOutageIsUnavailableAndTheNextAttemptWorks(mode: String) throws {
        try fake.setMode("stripe", mode)
        let started = Date()
        #expect(throws: PaymentProviderError.self) { try stripe.createPayment(request()) }
        do { _ = try stripe.createPayment(request()) } catch {
            guard case .unavailable = error else { Issue.record("\(mode): \(error)"); return }
        }
        #expect(Date().timeIntervalSince(started) < 10)
        try fake.setMode("stripe", "ok")
        #expect(try stripe.createPayment(request()).url != nil)

        try fake.setMode("btcpay", mode)
        do { _ = try btcpay.createPayment(request(.btc)); Issue.record("btcpay \(mode) answered") } catch {
            guard case .unavailable = error else { Issue.record("btcpay \(mode): \(error)"); return }
        }
        try fake.setMode("btcpay", "ok")
        #expect(try btcpay.createPayment(request(.btc)).address != nil)
        #expect(try fake.requests("redirected").isEmpty, "a redirect was followed")
    }

    @Test func aRefusedKeyIsRefusedAndNothingAnswersUnreachable() throws {
        let wrong = StripeCheckout(account: StripeAccount(secretKey: "sk_test_wrong", successURL: "https://a", cancelURL: "https://b", api: api))
        #expect(throws: PaymentProviderError.refused("creating a Checkout Session: Stripe answered 401")) { try wrong.createPayment(request()) }
        // A request Stripe refuses is refused again on every retry: not an outage.
        try fake.setMode("stripe", "400")
        #expect(throws: PaymentProviderError.refused("creating a Checkout Session: Stripe answered 400 amount_too_small")) {
            try stripe.createPayment(request())
        }
        try fake.setMode("stripe", "ok")
        // a closed port: connection refused
        let nobody = StripeCheckout(account: StripeAccount(secretKey: "k", successURL: "https://a", cancelURL: "https://b",
                                                           api: OutsideAPI(baseURL: "http://127.0.0.1:1", timeoutSeconds: 1)))
        do { _ = try nobody.createPayment(request()); Issue.record("answered") } catch {
            guard case .unavailable = error else { Issue.record("\(error)"); return }
        }
    }

    @Test func btcpayInvoicesCarryTheOrderIdAndOneOnChainMethod() throws {
        for (method, id, currency) in [(PaymentMethod.btc, "BTC-CHAIN", "BTC"), (.xmr, "XMR-CHAIN", "XMR")] {
            let r = request(method)
            let destination = try btcpay.createPayment(r)
            #expect(destination.providerRef.hasPrefix("FakeInv"))
            #expect(destination.address?.isEmpty == false)
            #expect(destination.cryptoAmount == (currency == "BTC" ? "0.00028000" : "0.087500000000"))
            let created = try #require(try fake.requests("btcpay").last { $0["method"]?.stringValue == "POST" })
            let body = try #require(created["body"])
            #expect(body["amount"]?.stringValue == "14.00")
            #expect(body["currency"]?.stringValue == "USD")
            #expect(body["metadata"]?["orderId"]?.stringValue == r.invoiceId)
            let checkout = try #require(body["checkout"])
            #expect(checkout["paymentMethods"]?.arrayValue?.map(\.stringValue) == [id])
            #expect(checkout["expirationMinutes"]?.numberValue?.exactInt == 60)
            // the settings the settlement rules rely on are pinned, not the store's
            #expect(checkout["monitoringMinutes"]?.numberValue?.exactInt == 1440)
            #expect(checkout["paymentTolerance"]?.numberValue?.exactInt == 0)
            #expect(checkout["lazyPaymentMethods"] == .bool(false))
            #expect(checkout["speedPolicy"]?.stringValue == "MediumSpeed")
            #expect(try btcpay.invoiceState(providerRef: destination.providerRef) == .pending(orderId: r.invoiceId))
            try fake.setBTCPayStatus(destination.providerRef, "Settled", additional: "PaidLate")
            #expect(try btcpay.invoiceState(providerRef: destination.providerRef) == .settled(orderId: r.invoiceId, paidLate: true, amount: 1400, currency: "usd"))
            try fake.setBTCPayStatus(destination.providerRef, "Expired", additional: "PaidPartial",
                                     monitoredUntil: Timestamp(seconds: 1_900_000_000))
            #expect(try btcpay.invoiceState(providerRef: destination.providerRef)
                    == .expired(orderId: r.invoiceId, monitoredUntil: Timestamp(seconds: 1_900_000_000)))
            try fake.setBTCPayStatus(destination.providerRef, "Invalid")
            #expect(try btcpay.invoiceState(providerRef: destination.providerRef) == .failed(orderId: r.invoiceId))
        }
        #expect(throws: PaymentProviderError.self) { try btcpay.invoiceState(providerRef: "../../x") }
    }

    @Test func minorUnitsAsDecimalText() {
        #expect(CurrencyUnits.decimalText(minorUnits: 1400, currency: "usd") == "14.00")
        #expect(CurrencyUnits.decimalText(minorUnits: 5, currency: "EUR") == "0.05")
        #expect(CurrencyUnits.decimalText(minorUnits: 1400, currency: "jpy") == "1400")
        #expect(CurrencyUnits.decimalText(minorUnits: 1234, currency: "kwd") == "1.234")
        #expect(CurrencyUnits.minorUnits(decimalText: "14.00", currency: "USD") == 1400)
        #expect(CurrencyUnits.minorUnits(decimalText: "14", currency: "usd") == 1400)
        #expect(CurrencyUnits.minorUnits(decimalText: "14.5", currency: "usd") == 1450)
        #expect(CurrencyUnits.minorUnits(decimalText: "14.000", currency: "usd") == 1400)
        #expect(CurrencyUnits.minorUnits(decimalText: "1400", currency: "jpy") == 1400)
        for bad in ["14.001", "-1", "1e3", "", ".5", "14.", " 14", "0x10", "14.0.0"] {
            #expect(CurrencyUnits.minorUnits(decimalText: bad, currency: "usd") == nil, "\(bad)")
        }
    }
}
