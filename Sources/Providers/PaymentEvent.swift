/// A verified webhook delivery, read into what it means for an invoice whatever the provider:
/// the one shape settlement applies (README, Web payments).
public struct PaymentEvent: Hashable, Sendable {
    /// The provider's id of the event: deliveries are at least once, so settlement applies each
    /// id once (a redelivery carries the same id).
    public var id: String
    public var change: PaymentChange

    public init(id: String, change: PaymentChange) {
        self.id = id
        self.change = change
    }
}

/// What an event, a fresh read or a listed settlement says happened to a payment.
public enum PaymentChange: Hashable, Sendable {
    /// The payment of the provider's object `providerRef` settled in full.
    case settled(PaymentSettlement)
    /// Seen but not final yet (unpaid, partly paid, awaiting confirmations): nothing changes.
    case pending(providerRef: String)
    /// The provider's object can no longer be paid: its open invoice closes. `unknownInvoice`
    /// and `closed` say so in the provider's words (what the outcome of a settlement reads).
    case closed(providerRef: String, unknownInvoice: String, closed: String)
    /// The payment `paymentRef` (as ``PaymentSettlement/paymentRef`` recorded it) was refunded,
    /// in full or, so far, in part.
    case refunded(paymentRef: String, extent: RefundExtent)
    /// A dispute (a chargeback) of the payment `paymentRef` opened or closed.
    case disputed(paymentRef: String, disputeId: String, state: DisputeState)
    /// Only a hint about the provider's object `providerRef`: the invoice is read afresh from the
    /// provider (``InvoiceStateReading``) and what that read says is applied.
    case recheck(providerRef: String)
    /// Anything else (an event type settlement does not use): recorded, nothing changes.
    case other(String)
}

/// A settled payment as the provider states it; it settles its invoice only when every part
/// matches the invoice.
public struct PaymentSettlement: Hashable, Sendable {
    /// The provider's object the invoice recorded (a Checkout Session, a BTCPay invoice).
    public var providerRef: String
    /// Our invoice id as the provider holds it.
    public var orderId: String?
    /// The amount paid, in minor units of `currency`, as the provider states it.
    public var amount: UInt64?
    /// ISO 4217, any case.
    public var currency: String?
    /// The payment, as the provider's refunds will name it (a PaymentIntent, a BTCPay invoice).
    public var paymentRef: String?

    public init(providerRef: String, orderId: String?, amount: UInt64?, currency: String?, paymentRef: String?) {
        self.providerRef = providerRef
        self.orderId = orderId
        self.amount = amount
        self.currency = currency
        self.paymentRef = paymentRef
    }
}

/// How much of a payment its refunds have given back so far.
public enum RefundExtent: Hashable, Sendable {
    /// All of it.
    case full
    /// `refunded` of `amount` minor units, cumulative over the payment's refunds (0 < refunded < amount).
    case partial(refunded: UInt64, amount: UInt64)
}

/// Where a dispute of a payment stands.
public enum DisputeState: String, Hashable, Sendable {
    /// Opened: the payment's issuance is held.
    case open
    /// Closed in the seller's favour (or an inquiry closed without a chargeback): the hold ends.
    case won
    /// Closed in the buyer's favour: the money went back, as a full refund.
    case lost
}
