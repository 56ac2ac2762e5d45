import BadgeCore
import Ledger

/// A purchase: the badge a purchase key holds.
public struct PurchaseRecord: Hashable, Sendable {
    /// Database id, never sent to clients.
    public var id: Int64
    /// The purchase key exactly as the envelope spells it.
    public var purchaseKey: String
    /// The 32-byte master key every credential of this purchase signs.
    public var masterKey: [UInt8]
    /// The type of the badge the purchase was funded for.
    public var badgeType: BadgeType
    public var createdAt: Timestamp
}

/// A month issued as a credential: the period it covers and what was signed.
public struct IssuanceRecord: Hashable, Sendable {
    /// The `badge` ledger row this issuance belongs to (one issuance per such row).
    public var entryId: String
    public var purchaseId: Int64
    public var badgeType: BadgeType
    public var periodStart: Timestamp
    public var periodEnd: Timestamp
    public var expiry: Timestamp
    public var keyIndex: Int
    /// The 80-byte BBS signature.
    public var signature: [UInt8]

    public init(entryId: String, purchaseId: Int64, badgeType: BadgeType, periodStart: Timestamp,
                periodEnd: Timestamp, expiry: Timestamp, keyIndex: Int, signature: [UInt8]) {
        self.entryId = entryId
        self.purchaseId = purchaseId
        self.badgeType = badgeType
        self.periodStart = periodStart
        self.periodEnd = periodEnd
        self.expiry = expiry
        self.keyIndex = keyIndex
        self.signature = signature
    }
}

/// Whether the months a code grants were paid for.
public enum CodePayment: String, Sendable, CaseIterable {
    /// Paid: redeemable.
    case paid
    /// Sold but not yet settled: redemption answers payment_pending.
    case unpaid
    /// Given away by the operator: redeemable.
    case free
}

/// A redemption code. Only the SHA-256 of its canonical form is stored.
public struct CodeRecord: Hashable, Sendable {
    public var hash: [UInt8]
    public var badgeType: BadgeType
    /// 1 ... 255
    public var months: Int
    /// How many purchase keys may redeem it, 1 ... 1000.
    public var maxUses: Int
    public var payment: CodePayment
    public var expiresAt: Timestamp?
    public var revokedAt: Timestamp?
    public var createdAt: Timestamp

    public init(hash: [UInt8], badgeType: BadgeType, months: Int, maxUses: Int, payment: CodePayment,
                expiresAt: Timestamp?, revokedAt: Timestamp? = nil, createdAt: Timestamp) {
        self.hash = hash
        self.badgeType = badgeType
        self.months = months
        self.maxUses = maxUses
        self.payment = payment
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.createdAt = createdAt
    }
}

/// Where an invoice is in its life. `open` until the provider settles it (`paid`), it expires or
/// is cancelled unpaid (`closed`), or its payment is refunded before it was credited (`refunded`).
public enum InvoiceStatus: String, Sendable, CaseIterable {
    case open, paid, closed, refunded
}

/// An invoice `getBadgeInvoice` priced for a purchase key, and its provider's side of it.
/// An upgrade invoice's conversion (getBadgeInvoice.upgrade): the purchase whose unissued months
/// it credited, and how many; its settlement debits them as `upgrade`.
public struct InvoiceUpgrade: Hashable, Sendable {
    public var invoiceId: String
    public var fromPurchaseId: Int64
    public var months: Int

    public init(invoiceId: String, fromPurchaseId: Int64, months: Int) {
        self.invoiceId = invoiceId
        self.fromPurchaseId = fromPurchaseId
        self.months = months
    }
}

public struct InvoiceRecord: Hashable, Sendable {
    /// The protocol's `invoiceId` (base64url of 16 random bytes), also the provider's reference to us.
    public var invoiceId: String
    public var purchaseKey: String
    public var badgeType: BadgeType
    public var months: Int
    public var price: UInt32
    public var discount: UInt32
    public var credit: UInt32
    public var amount: UInt32
    public var currency: String
    public var priceId: String
    public var offerId: String?
    /// `stripe` or `btcpay`.
    public var provider: String
    /// `card`, `btc` or `xmr`.
    public var method: String
    /// The provider's id of its side: a Checkout Session id, a BTCPay invoice id.
    public var providerRef: String
    public var paymentURL: String?
    public var address: String?
    public var cryptoAmount: String?
    public var status: InvoiceStatus
    public var createdAt: Timestamp
    public var expiresAt: Timestamp
    public var paidAt: Timestamp?
    /// The provider's id of the settled payment (a Stripe PaymentIntent), for refunds.
    public var paymentRef: String?

    public init(invoiceId: String, purchaseKey: String, badgeType: BadgeType, months: Int, price: UInt32, discount: UInt32,
                credit: UInt32, amount: UInt32, currency: String, priceId: String, offerId: String?, provider: String,
                method: String, providerRef: String, paymentURL: String?, address: String?, cryptoAmount: String?,
                status: InvoiceStatus, createdAt: Timestamp, expiresAt: Timestamp, paidAt: Timestamp? = nil,
                paymentRef: String? = nil) {
        self.invoiceId = invoiceId
        self.purchaseKey = purchaseKey
        self.badgeType = badgeType
        self.months = months
        self.price = price
        self.discount = discount
        self.credit = credit
        self.amount = amount
        self.currency = currency
        self.priceId = priceId
        self.offerId = offerId
        self.provider = provider
        self.method = method
        self.providerRef = providerRef
        self.paymentURL = paymentURL
        self.address = address
        self.cryptoAmount = cryptoAmount
        self.status = status
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.paidAt = paidAt
        self.paymentRef = paymentRef
    }
}

/// A purchase as `issueBadge` reads it (``StoreReader/issueView(purchaseKey:asserting:completeHistoryLimit:)``).
public struct IssueView: Hashable, Sendable {
    public var purchase: PurchaseRecord
    /// The subscription that funds (or funded) the purchase; with one, the ledger is not read.
    public var funding: SubscriptionFunding?
    /// The end of the ledger the assertion needs; nil when `funding` is set.
    public var tail: LedgerTail?
    public var latestIssuance: IssuanceRecord?
    public var pausedSince: Timestamp?

    public init(purchase: PurchaseRecord, funding: SubscriptionFunding?, tail: LedgerTail?, latestIssuance: IssuanceRecord?,
                pausedSince: Timestamp?) {
        self.purchase = purchase
        self.funding = funding
        self.tail = tail
        self.latestIssuance = latestIssuance
        self.pausedSince = pausedSince
    }
}

/// A payment or a subscription charge a provider took back (`badge_refunds`).
public struct ProviderRefund: Hashable, Sendable {
    public enum Kind: String, Sendable {
        /// A one-time payment, by the reference `badge_payments.provider_ref` holds for it, or a
        /// Stripe payment intent.
        case payment
        /// A subscription charge, by the ledger's `charge {chargeId}`.
        case charge
    }

    public var provider: String
    public var kind: Kind
    public var reference: String

    public init(provider: String, kind: Kind, reference: String) {
        self.provider = provider
        self.kind = kind
        self.reference = reference
    }
}

/// How much of a provider's payment its refunds gave back so far, and the months that debited
/// (`badge_refund_amounts`): a later refund of more debits only the difference.
public struct RefundProgress: Hashable, Sendable {
    public var provider: String
    public var paymentRef: String
    /// Minor units refunded, cumulative over the payment's refunds.
    public var refunded: UInt64
    /// The payment's amount in the same units.
    public var amount: UInt64
    /// Months debited `refund` for it so far (none while its invoice is not credited).
    public var monthsDebited: Int

    public init(provider: String, paymentRef: String, refunded: UInt64, amount: UInt64, monthsDebited: Int) {
        self.provider = provider
        self.paymentRef = paymentRef
        self.refunded = refunded
        self.amount = amount
        self.monthsDebited = monthsDebited
    }
}
