import BadgeCore

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

extension ProviderInvoiceState {
    /// The order id (our invoice id) the provider holds, in whichever state.
    public var orderId: String? {
        switch self {
        case .settled(let orderId, _, _, _), .pending(let orderId), .expired(let orderId, _), .failed(let orderId): orderId
        }
    }

    /// What the state means for the invoice whose provider reference is `providerRef`, as a
    /// delivery would say it: settled with the reference as its payment, still pending, or closed.
    public func change(providerRef: String) -> PaymentChange {
        switch self {
        case let .settled(orderId, _, amount, currency):
            .settled(PaymentSettlement(providerRef: providerRef, orderId: orderId, amount: amount, currency: currency,
                                       paymentRef: providerRef))
        case .pending: .pending(providerRef: providerRef)
        case .expired, .failed: .closed(providerRef: providerRef, unknownInvoice: "no invoice", closed: "invoice closed")
        }
    }
}
