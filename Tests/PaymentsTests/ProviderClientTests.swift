import BadgeCore
import Foundation
import JSON
import Providers
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

    var now: Int64 { Int64(Date().timeIntervalSince1970) }
    /// A page of 100 holds more than the 64 KiB above: the listing clients get the default cap.
    var listAPI: OutsideAPI { OutsideAPI(baseURL: fake.url, timeoutSeconds: 1.5) }
    var stripeLister: StripeCheckout {
        StripeCheckout(account: StripeAccount(secretKey: fake.stripeKey, successURL: "https://shop.test/ok", cancelURL: "https://shop.test/no",
                                              api: listAPI))
    }
    var btcpayLister: BTCPayInvoices { BTCPayInvoices(account: BTCPayAccount(apiKey: fake.btcpayKey, storeId: fake.btcpayStore, api: listAPI)) }

    /// Stripe's list of Checkout Sessions read to its end (`starting_after` while `has_more`):
    /// the complete and paid sessions created since the time asked, each with what settlement
    /// matches against its invoice; open and unpaid ones are no settlement.
    @Test func paidCheckoutSessionsAreListedPageByPage() throws {
        let since = Timestamp(seconds: now - 5)
        var paid: [String: (invoiceId: String, intent: String)] = [:]
        for i in 0..<(StripeCheckout.listPageSize + 5) {
            let r = request()
            let made = try stripe.createPayment(r)
            paid[made.providerRef] = (r.invoiceId, "pi_list_\(i)")
            try fake.setStripeSession(made.providerRef, paymentIntent: "pi_list_\(i)")
        }
        let open = try stripe.createPayment(request()).providerRef
        let unpaid = try stripe.createPayment(request()).providerRef
        try fake.setStripeSession(unpaid, paymentStatus: "unpaid")  // a delayed payment method, not paid yet
        let listed = try stripeLister.settlements(createdSince: since)
        #expect(listed.count == paid.count && Set(listed.map(\.providerRef)) == Set(paid.keys))
        #expect(!listed.contains { [open, unpaid].contains($0.providerRef) })
        for settlement in listed {
            let expected = try #require(paid[settlement.providerRef])
            let id = settlement.providerRef
            #expect(settlement == ListedSettlement(providerRef: id, orderId: expected.invoiceId, change: .settled(PaymentSettlement(
                providerRef: id, orderId: expected.invoiceId, amount: 1400, currency: "usd", paymentRef: expected.intent))))
        }
        let pages = try fake.requests("lists").compactMap(\.["query"])
        #expect(pages.count == 2, "\(pages)")
        for page in pages {
            #expect(page["created[gte]"]?.arrayValue == [.string(String(since.seconds))])
            #expect(page["status"]?.arrayValue == ["complete"] && page["limit"]?.arrayValue == ["100"])
        }
        #expect(pages[0]["starting_after"] == nil && pages[1]["starting_after"] != nil)
        // created before the time asked: not listed
        #expect(try stripeLister.settlements(createdSince: Timestamp(seconds: now + 60)).isEmpty)
    }

    /// BTCPay's list of a store's invoices read to its end (`skip`/`take` until a short page):
    /// the Settled ones, read as a single invoice is read.
    @Test func settledBTCPayInvoicesAreListedPageByPage() throws {
        let since = Timestamp(seconds: now - 5)
        var settled: [String: String] = [:]
        for i in 0..<(BTCPayInvoices.listPageSize + 3) {
            let r = request(.btc)
            let made = try btcpay.createPayment(r)
            settled[made.providerRef] = r.invoiceId
            try fake.setBTCPayStatus(made.providerRef, "Settled", additional: i == 0 ? "PaidLate" : "None")
        }
        let pending = try btcpay.createPayment(request(.xmr)).providerRef
        let listed = try btcpayLister.settlements(createdSince: since)
        #expect(listed.count == settled.count && Set(listed.map(\.providerRef)) == Set(settled.keys))
        #expect(!listed.contains { $0.providerRef == pending })
        for settlement in listed {
            guard case .settled(let paid) = settlement.change else { Issue.record("\(settlement)"); continue }
            #expect(settlement.orderId == settled[settlement.providerRef] && paid.orderId == settlement.orderId)
            #expect(paid.amount == 1400 && paid.currency == "usd" && paid.paymentRef == settlement.providerRef)
        }
        let pages = try fake.requests("lists").compactMap(\.["query"])
        #expect(pages.map { $0["skip"]?.arrayValue } == [["0"], ["100"]], "\(pages)")
        for page in pages {
            #expect(page["startDate"]?.arrayValue == [.string(String(since.seconds))])
            #expect(page["status"]?.arrayValue == ["Settled"] && page["take"]?.arrayValue == ["100"])
        }
    }

    /// A list call that fails — on its first page or a later one, by a 5xx, a timeout, an answer
    /// over the cap — fails the whole listing: nothing is returned half-read.
    @Test(arguments: ["500", "hang", "huge", "later-pages-500"])
    func aFailedListCallFailsTheWholeListing(mode: String) throws {
        for i in 0..<(StripeCheckout.listPageSize + 1) {
            let made = try stripe.createPayment(request())
            try fake.setStripeSession(made.providerRef, paymentIntent: "pi_\(i)")
            try fake.setBTCPayStatus(try btcpay.createPayment(request(.btc)).providerRef, "Settled")
        }
        let since = Timestamp(seconds: now - 60)
        for (provider, list) in [("stripe", { () throws(PaymentProviderError) in _ = try stripeLister.settlements(createdSince: since) }),
                                 ("btcpay", { () throws(PaymentProviderError) in _ = try btcpayLister.settlements(createdSince: since) })] {
            try fake.setMode(provider, mode)
            do { try list(); Issue.record("\(provider) \(mode): listed") } catch {
                guard case .unavailable = error else { Issue.record("\(provider) \(mode): \(error)"); continue }
            }
            try fake.setMode(provider, "ok")
            try list()
        }
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
