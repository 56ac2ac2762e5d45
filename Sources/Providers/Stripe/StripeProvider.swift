import BadgeCore
import OutsideHTTP

/// Stripe, as a provider: card payments through Checkout Sessions (``StripeCheckout``), its
/// `Stripe-Signature` webhook (``StripeWebhook``) read into ``PaymentEvent``s, and its list of
/// paid sessions for `reconcile`.
public struct StripeProvider: ConfiguredProvider, SettlementListing {
    public typealias Settings = StripeSettings
    public static let methods: Set<PaymentMethod> = [.card]
    /// A session paid just before it expired is reported by a webhook Stripe retries for up to
    /// three days; a session that expired unpaid is never paid later.
    public static let lateSettlement = LateSettlement(seconds: 3 * 86_400, afterClosing: false)
    public static let signatureHeader = "Stripe-Signature"

    public let checkout: StripeCheckout
    public let webhook: StripeWebhook

    public init(checkout: StripeCheckout, webhook: StripeWebhook) {
        self.checkout = checkout
        self.webhook = webhook
    }

    public init(settings: StripeSettings, transport: any OutsideHTTPTransport) {
        let api = OutsideAPI(baseURL: settings.apiURL ?? StripeSettings.defaultAPIURL, timeoutSeconds: Double(settings.timeout),
                             maxResponseBytes: settings.maxResponseBytes)
        self.init(checkout: StripeCheckout(account: StripeAccount(secretKey: settings.secretKey ?? "", successURL: settings.successURL ?? "",
                                                                  cancelURL: settings.cancelURL ?? "", api: api), client: transport),
                  webhook: StripeWebhook(secret: settings.webhookSecret ?? ""))
    }

    public func createPayment(_ request: PaymentRequest) throws(PaymentProviderError) -> PaymentDestination {
        try checkout.createPayment(request)
    }

    public func event(of delivery: WebhookDelivery, at now: Timestamp) throws(WebhookRefusal) -> PaymentEvent {
        Self.paymentEvent(try webhook.event(body: delivery.body, signatureHeader: delivery.header(Self.signatureHeader), now: now))
    }

    public func settlements(createdSince since: Timestamp) throws(PaymentProviderError) -> [ListedSettlement] {
        try checkout.settlements(createdSince: since)
    }

    /// What a Stripe event means for an invoice: a paid session settles it when its
    /// `client_reference_id`, amount and currency match (the PaymentIntent is what refunds name);
    /// an expired one, or one whose delayed payment failed, closes it; a refund (whole or how much
    /// of how much) and a dispute (opened, won or lost) name the intent.
    public static func paymentEvent(_ event: StripeEvent) -> PaymentEvent {
        let change: PaymentChange
        switch event.settlement {
        case let .paid(sessionId, reference, amount, currency, intent):
            change = .settled(PaymentSettlement(providerRef: sessionId, orderId: reference, amount: amount.flatMap(UInt64.init(exactly:)),
                                                currency: currency, paymentRef: intent))
        case let .expired(sessionId, _):
            change = .closed(providerRef: sessionId, unknownInvoice: "expired session of no invoice", closed: "invoice closed")
        case let .paymentFailed(sessionId, _):
            change = .closed(providerRef: sessionId, unknownInvoice: "failed session of no invoice",
                             closed: "invoice closed, its delayed payment failed")
        case let .refunded(intent, fully, refunded, amount):
            // A partial refund names how much of how much; one that says neither changes nothing.
            if fully {
                change = .refunded(paymentRef: intent, extent: .full)
            } else if let refunded = refunded.flatMap(UInt64.init(exactly:)), let amount = amount.flatMap(UInt64.init(exactly:)),
                      refunded > 0, amount > 0 {
                change = .refunded(paymentRef: intent, extent: refunded >= amount ? .full : .partial(refunded: refunded, amount: amount))
            } else {
                change = .other("charge.refunded")
            }
        case let .disputed(intent, dispute, closedStatus):
            switch closedStatus {
            case nil: change = .disputed(paymentRef: intent, disputeId: dispute, state: .open)
            case "lost"?: change = .disputed(paymentRef: intent, disputeId: dispute, state: .lost)
            // An inquiry closed without becoming a chargeback (`warning_closed`) is won too.
            case "won"?, "warning_closed"?: change = .disputed(paymentRef: intent, disputeId: dispute, state: .won)
            case _?: change = .other("charge.dispute.closed")
            }
        case .other(let type):
            change = .other(type)
        }
        return PaymentEvent(id: event.id, change: change)
    }
}
