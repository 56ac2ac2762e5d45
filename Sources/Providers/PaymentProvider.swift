import BadgeCore
import OutsideHTTP
import Settings

/// How an invoice is paid (the protocol's `paymentVia`): by card, or in BTC or XMR. A provider
/// collects one or more of them.
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
    /// The provider asked to be called again in `retryAfter` seconds (Stripe's 409 and 429):
    /// `provider_unavailable` with that wait, and it is not called before.
    case busy(String, retryAfter: UInt32)

    public var description: String {
        switch self {
        case .unavailable(let why): "provider unavailable: \(why)"
        case let .busy(why, after): "provider busy for \(after) s: \(why)"
        case .refused(let why): "provider refused this service: \(why)"
        }
    }
}

/// A payment provider as the service uses it, whatever its API: it makes the provider's side of
/// an invoice, and reads its signed webhook deliveries into normalised ``PaymentEvent``s. What
/// else it can do is a capability it conforms to: ``InvoiceStateReading`` (a fresh read of an
/// invoice, when its deliveries are only hints) and ``SettlementListing`` (its settlements since a
/// time, for `reconcile`). Side effects stay behind it, so handlers are tested with the real
/// clients against fakes over HTTP, or with a provider of the tests' own.
public protocol PaymentProvider: Sendable {
    /// The provider's name: its configuration section, its webhook's path
    /// (`/webhooks/<name>`), and what invoices and events record it as.
    var name: String { get }
    /// The methods it collects.
    var methods: Set<PaymentMethod> { get }
    /// How long after an invoice's expiry its payment may still settle.
    var lateSettlement: LateSettlement { get }
    /// Creates the provider's side of an invoice.
    func createPayment(_ request: PaymentRequest) throws(PaymentProviderError) -> PaymentDestination
    /// Verifies a webhook delivery (its signature, over the raw body) and reads what it says.
    func event(of delivery: WebhookDelivery, at now: Timestamp) throws(WebhookRefusal) -> PaymentEvent
}

/// A provider that is one folder of this target: built from its configuration section alone.
/// ``ProviderCatalog`` lists the kinds this binary deploys; a registry built from the
/// configuration deploys each whose section is present.
public protocol ConfiguredProvider: PaymentProvider {
    /// Its section's settings: keys, defaults and required keys, each written once.
    associatedtype Settings: StoreSettings
    /// The methods a provider of this kind collects.
    static var methods: Set<PaymentMethod> { get }
    /// How long after an invoice's expiry its payment may still settle.
    static var lateSettlement: LateSettlement { get }
    /// The header its webhook's signature comes in (for the OpenAPI document).
    static var signatureHeader: String { get }
    /// The provider of a present section whose required keys are all set (the registry checked
    /// them), calling out through `transport`.
    init(settings: Settings, transport: any OutsideHTTPTransport)
}

extension ConfiguredProvider {
    /// The kind's name: its section.
    public static var name: String { Settings.section }
    public var name: String { Self.name }
    public var methods: Set<PaymentMethod> { Self.methods }
    public var lateSettlement: LateSettlement { Self.lateSettlement }
}

/// How long after an invoice's expiry a provider may still settle its payment.
public struct LateSettlement: Sendable, Hashable {
    /// Seconds past the expiry.
    public var seconds: Int64
    /// Whether an invoice closed unpaid may still settle (a coin payment confirming late), or
    /// its closing is final (a card session that expired).
    public var afterClosing: Bool

    public init(seconds: Int64, afterClosing: Bool) {
        self.seconds = seconds
        self.afterClosing = afterClosing
    }

    /// For an invoice of a provider this binary no longer knows: the longest window any has.
    public static let unknownProvider = LateSettlement(seconds: 3 * 86_400, afterClosing: true)
}

/// A webhook delivery as the provider sent it: the raw body (signatures cover its bytes) and
/// its header fields.
public struct WebhookDelivery: Sendable {
    public let body: [UInt8]
    private let field: @Sendable (String) -> String?

    /// `field(name)` answers the first value of a header field, by case-insensitive name.
    public init(body: [UInt8], field: @escaping @Sendable (String) -> String?) {
        self.body = body
        self.field = field
    }

    /// The first value of the header field `name` (case-insensitive), if sent.
    public func header(_ name: String) -> String? { field(name) }
}
