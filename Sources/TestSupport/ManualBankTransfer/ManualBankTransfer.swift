import BadgeCore
import OutsideHTTP
import Providers

/// A test-only payment provider, a manual bank transfer: the invoice's page tells the buyer the
/// account and a reference to quote, and the bank's signed notice of the transfer settles it.
/// It exists to show that a provider is its folder and one line where the registry's catalog is
/// made. The protocol's `paymentVia` names card and coins only, so it collects `card` (its page
/// is the transfer instructions); a real new method would be a change of the protocol.
public struct ManualBankTransfer: ConfiguredProvider {
    public typealias Settings = BankTransferSettings
    public static let methods: Set<PaymentMethod> = [.card]
    /// A transfer ordered before the invoice expired may take a day to arrive.
    public static let lateSettlement = LateSettlement(seconds: 86_400, afterClosing: false)
    public static let signatureHeader = BankTransferNotice.signatureHeader

    let settings: BankTransferSettings
    let notices: BodyHMAC

    public init(settings: BankTransferSettings, transport: any OutsideHTTPTransport) {
        self.settings = settings
        notices = BodyHMAC(secret: settings.webhookSecret ?? "")
    }

    /// The reference the buyer quotes: the invoice's own id, so no call to a bank is needed.
    public static func reference(of invoiceId: String) -> String { "MBT-" + invoiceId }

    public func createPayment(_ request: PaymentRequest) throws(PaymentProviderError) -> PaymentDestination {
        guard request.method == .card else { throw .refused("a bank transfer is not a coin payment") }
        let reference = Self.reference(of: request.invoiceId)
        let page = (settings.instructionsURL ?? BankTransferSettings.defaultInstructionsURL)
        // The account is recorded with the invoice; the page the buyer is sent to shows it.
        return PaymentDestination(providerRef: reference, url: page + "?reference=" + reference, address: settings.iban)
    }

    public func event(of delivery: WebhookDelivery, at now: Timestamp) throws(WebhookRefusal) -> PaymentEvent {
        try BankTransferNotice.event(delivery.body, signature: delivery.header(Self.signatureHeader), secret: notices)
    }
}
