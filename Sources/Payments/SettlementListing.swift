import BadgeCore

/// A settlement as a provider's list API reports it: what `badge-service reconcile` applies
/// after a restore, as the provider's webhook would have.
public enum ListedSettlement: Hashable, Sendable {
    /// A Checkout Session Stripe lists as complete and paid. `invoiceTag` is the
    /// `metadata[invoice_id]` this service's sessions carry (nil: not one of ours).
    case stripeSession(id: String, clientReferenceId: String?, invoiceTag: String?, amountTotal: Int?, currency: String?,
                       paymentIntent: String?)
    /// A BTCPay invoice as listed, read as a single fresh read is (``InvoiceStateReading``).
    case btcpayInvoice(id: String, state: ProviderInvoiceState)

    /// The provider's reference: the Checkout Session or BTCPay invoice id.
    public var providerRef: String {
        switch self {
        case .stripeSession(let id, _, _, _, _, _): id
        case .btcpayInvoice(let id, _): id
        }
    }

    /// Our invoice id as the provider holds it, when it holds one.
    public var orderId: String? {
        switch self {
        case .stripeSession(_, let reference, let tag, _, _, _): tag ?? reference
        case .btcpayInvoice(_, let state): state.orderId
        }
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

extension ProviderInvoiceState {
    /// The order id (our invoice id) the provider holds, in whichever state.
    public var orderId: String? {
        switch self {
        case .settled(let orderId, _, _, _), .pending(let orderId), .expired(let orderId, _), .failed(let orderId): orderId
        }
    }
}

/// How many pages a listing reads at most: a provider that never stops paging is an outage.
let maximumListPages = 10_000
