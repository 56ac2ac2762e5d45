/// A store subscription as the service last read it (schema `subscriptionState`).
public enum SubscriptionState: String, Hashable, Sendable, CaseIterable {
    case renewing
    /// Auto-renewal off; the paid period still runs.
    case cancelled
    /// A charge failed and the store is retrying it.
    case billingRetry
    /// No charge will come.
    case ended
}
