import BadgeCore

/// A settlement as a provider's list API reports it: what `badge-service reconcile` applies
/// after a restore, as the provider's webhook would have.
public struct ListedSettlement: Hashable, Sendable {
    /// The provider's object (a Checkout Session, a BTCPay invoice).
    public var providerRef: String
    /// Our invoice id as the provider holds it, when it holds one (nil: not this service's).
    public var orderId: String?
    /// What the list says of it, as a delivery would say it.
    public var change: PaymentChange

    public init(providerRef: String, orderId: String?, change: PaymentChange) {
        self.providerRef = providerRef
        self.orderId = orderId
        self.change = change
    }
}

/// A provider whose settlements can be listed: its list API, read page by page.
public protocol SettlementListing: Sendable {
    /// The provider's name as stored with the invoice (`stripe`, `btcpay`).
    var name: String { get }
    /// Every settlement of a payment object created at or after `since`, all pages read; a failed
    /// page fails the whole listing (nothing is returned half-read).
    func settlements(createdSince since: Timestamp) throws(PaymentProviderError) -> [ListedSettlement]
}

/// How many pages a listing reads at most: a provider that never stops paging is an outage.
let maximumListPages = 10_000
