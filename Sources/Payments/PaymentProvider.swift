import BadgeCore

/// How an invoice is paid: by card through Stripe, or in BTC or XMR through BTCPay.
public enum PaymentMethod: String, Hashable, Sendable, CaseIterable {
    case card, btc, xmr
}

/// What the service asks a provider to collect for one invoice.
public struct PaymentRequest: Hashable, Sendable {
    /// The protocol's invoice id; the provider echoes it back in its deliveries.
    public var invoiceId: String
    /// Minor units of `currency`.
    public var amount: UInt32
    /// Lowercase ISO 4217.
    public var currency: String
    public var method: PaymentMethod
    /// What the buyer sees on the provider's page.
    public var description: String
    public var createdAt: Timestamp
    public var expiresAt: Timestamp

    public init(invoiceId: String, amount: UInt32, currency: String, method: PaymentMethod, description: String,
                createdAt: Timestamp, expiresAt: Timestamp) {
        self.invoiceId = invoiceId
        self.amount = amount
        self.currency = currency
        self.method = method
        self.description = description
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// Where the buyer pays, as the provider answered: a hosted page, or an address and amount.
public struct PaymentDestination: Hashable, Sendable {
    /// The provider's id of its side (a Checkout Session id, a BTCPay invoice id).
    public var providerRef: String
    public var url: String?
    public var address: String?
    /// The amount in the coin's whole units, as decimal text.
    public var cryptoAmount: String?

    public init(providerRef: String, url: String? = nil, address: String? = nil, cryptoAmount: String? = nil) {
        self.providerRef = providerRef
        self.url = url
        self.address = address
        self.cryptoAmount = cryptoAmount
    }
}

/// Why a provider call failed, in the protocol's classes.
public enum PaymentProviderError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The provider was not reached, timed out, failed, or answered something unreadable:
    /// `provider_unavailable`, and the next attempt may work.
    case unavailable(String)
    /// The provider refused this service's credentials or request: this service's own
    /// misconfiguration, answered `internal`.
    case refused(String)

    public var description: String {
        switch self {
        case .unavailable(let why): "provider unavailable: \(why)"
        case .refused(let why): "provider refused this service: \(why)"
        }
    }
}

/// A payment provider the service creates invoices with. Side effects stay behind it, so
/// handlers are tested with an in-process fake and the real clients against fakes over HTTP.
public protocol PaymentProvider: Sendable {
    /// The provider's name as stored with the invoice (`stripe`, `btcpay`).
    var name: String { get }
    /// Creates the provider's side of an invoice.
    func createPayment(_ request: PaymentRequest) throws(PaymentProviderError) -> PaymentDestination
}

/// The state of an invoice as the provider reports it on a fresh read.
public enum ProviderInvoiceState: Hashable, Sendable {
    /// Settled in full: credit it. `orderId` is our invoice id as the provider holds it;
    /// `amount` the invoice's amount in `currency`, in minor units, as the provider states it.
    case settled(orderId: String?, paidLate: Bool, amount: UInt64?, currency: String?)
    /// Seen but not final yet (unpaid, partly paid, awaiting confirmations).
    case pending(orderId: String?)
    /// Expired without a settled payment; a late payment may still settle it while the provider
    /// watches for one, until `monitoredUntil` (BTCPay's `monitoringExpiration`) when it says.
    case expired(orderId: String?, monitoredUntil: Timestamp?)
    /// Invalid: the provider will not settle it (failed to confirm, or marked invalid).
    case failed(orderId: String?)
}

/// A provider whose deliveries are only hints: the service re-reads the invoice before settling.
public protocol InvoiceStateReading: Sendable {
    func invoiceState(providerRef: String) throws(PaymentProviderError) -> ProviderInvoiceState
}
