import BadgeCore

/// Why a wallet request was not done: the contract's code (`walletError` in
/// `schema/wallet.schema.json`), a message for the client, and seconds to wait when retrying helps.
public struct WalletRefusal: Error, Sendable, Equatable {
    /// The codes of `walletError`.
    public enum Code: String, Sendable, CaseIterable {
        case badRequest = "bad_request"
        case unauthenticated
        case unknownPack = "unknown_pack"
        /// The store's purchase is for another pack than the one named.
        case packMismatch = "pack_mismatch"
        case receiptInvalid = "receipt_invalid"
        /// The purchase funded another account already.
        case receiptUsed = "receipt_used"
        case testPurchase = "test_purchase"
        case paymentPending = "payment_pending"
        case devGrantsDisabled = "dev_grants_disabled"
        /// Too many failed front tokens from the address (as on `/rpc`).
        case rateLimited = "rate_limited"
        case providerNotConfigured = "provider_not_configured"
        case providerUnavailable = "provider_unavailable"
        case `internal`

        /// The HTTP status, as `/rpc` answers the codes the two share.
        public var httpStatus: Int {
            switch self {
            case .badRequest: 400
            case .unauthenticated: 401
            case .devGrantsDisabled: 403
            case .unknownPack: 404
            case .receiptUsed, .paymentPending: 409
            case .packMismatch, .receiptInvalid, .testPurchase: 422
            case .rateLimited: 429
            case .internal: 500
            case .providerNotConfigured: 501
            case .providerUnavailable: 503
            }
        }
    }

    public let code: Code
    public let message: String
    public let retryAfter: UInt32?

    public init(_ code: Code, _ message: String, retryAfter: UInt32? = nil) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    /// A store's verdict as the wallet answers it: the code of the same name, the store's wait
    /// (`provider_unavailable` a minute when the store named none).
    init(store verdict: StoreVerdict, _ reason: String, retryAfter: UInt32? = nil) {
        // Every class is a wallet code of the same name (a test holds them together).
        self.init(Code(rawValue: verdict.rawValue) ?? .internal, reason,
                  retryAfter: retryAfter ?? (verdict == .providerUnavailable ? 60 : nil))
    }

    /// The refusal as a client may see it: a store's refusal states its reason to the log only,
    /// since the reason tells a guesser which check failed (a forged receipt from a refunded one)
    /// and an outage or a refused credential tells anyone how the operator is set up.
    var withoutReason: WalletRefusal {
        let said: String = switch code {
        case .receiptInvalid: "the store does not confirm this purchase"
        case .packMismatch: "the purchase is not of the pack named"
        case .testPurchase: "a test purchase is not credited here"
        case .paymentPending: "the store has not completed this purchase yet; retry"
        case .providerUnavailable: "the store could not be asked; retry"
        case .providerNotConfigured: "this store is not configured here"
        case .internal: "the purchase could not be confirmed; the operator's log says why"
        default: message
        }
        return WalletRefusal(code, said, retryAfter: retryAfter)
    }
}
