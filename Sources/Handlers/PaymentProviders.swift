import Payments

/// The payment providers this deployment has configured: Stripe for cards, BTCPay for coins.
/// An absent one answers `provider_not_configured`.
public struct PaymentProviders: Sendable {
    public var card: (any PaymentProvider)?
    public var crypto: (any PaymentProvider & InvoiceStateReading)?

    public init(card: (any PaymentProvider)? = nil, crypto: (any PaymentProvider & InvoiceStateReading)? = nil) {
        self.card = card
        self.crypto = crypto
    }

    /// The provider collecting `method`, if configured.
    func provider(for method: PaymentMethod) -> (any PaymentProvider)? {
        method == .card ? card : crypto
    }

    /// The provider's name for a method, as configuration sections name it.
    static func section(for method: PaymentMethod) -> String { method == .card ? "stripe" : "btcpay" }
}
