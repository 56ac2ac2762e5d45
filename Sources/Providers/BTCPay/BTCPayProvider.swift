import BadgeCore
import OutsideHTTP

/// BTCPay Server, as a provider: BTC and XMR invoices through its Greenfield API
/// (``BTCPayInvoices``), its `BTCPay-Sig` webhook (``BTCPayWebhook``), whose deliveries are only
/// hints (the invoice is read afresh before anything is applied), and its list of settled
/// invoices for `reconcile`.
public struct BTCPayProvider: ConfiguredProvider, InvoiceStateReading, SettlementListing {
    public typealias Settings = BTCPaySettings
    public static let methods: Set<PaymentMethod> = [.btc, .xmr]
    /// As long as BTCPay is told to watch an expired invoice (`monitoringMinutes`, pinned on every
    /// invoice): until then a late payment may still confirm, a closed invoice included.
    public static let lateSettlement = LateSettlement(seconds: Int64(BTCPayInvoices.monitoringMinutes) * 60, afterClosing: true)
    public static let signatureHeader = "BTCPay-Sig"

    public let invoices: BTCPayInvoices
    public let webhook: BTCPayWebhook

    public init(invoices: BTCPayInvoices, webhook: BTCPayWebhook) {
        self.invoices = invoices
        self.webhook = webhook
    }

    public init(settings: BTCPaySettings, transport: any OutsideHTTPTransport) {
        let api = OutsideAPI(baseURL: settings.url ?? "", timeoutSeconds: Double(settings.timeout), maxResponseBytes: settings.maxResponseBytes)
        self.init(invoices: BTCPayInvoices(account: BTCPayAccount(apiKey: settings.apiKey ?? "", storeId: settings.storeID ?? "", api: api,
                                                                  speedPolicy: settings.speedPolicy), client: transport),
                  webhook: BTCPayWebhook(secret: settings.webhookSecret ?? ""))
    }

    public func createPayment(_ request: PaymentRequest) throws(PaymentProviderError) -> PaymentDestination {
        try invoices.createPayment(request)
    }

    /// A delivery names an invoice to read again (or nothing: an event about the store).
    public func event(of delivery: WebhookDelivery, at now: Timestamp) throws(WebhookRefusal) -> PaymentEvent {
        let read = try webhook.delivery(body: delivery.body, signatureHeader: delivery.header(Self.signatureHeader))
        return PaymentEvent(id: read.eventId, change: read.invoiceId.map { .recheck(providerRef: $0) } ?? .other(read.type))
    }

    public func invoiceState(providerRef: String) throws(PaymentProviderError) -> ProviderInvoiceState {
        try invoices.invoiceState(providerRef: providerRef)
    }

    public func settlements(createdSince since: Timestamp) throws(PaymentProviderError) -> [ListedSettlement] {
        try invoices.settlements(createdSince: since)
    }
}
