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

/// Status of a catalog price or offer (schema `badgeItemStatus`). Disabled items are not sent.
public enum ItemStatus: String, Hashable, Sendable, CaseIterable {
    case active, deprecated, disabled
}

extension WireObject {
    /// A string member that must be one of `E`'s raw values.
    func enumeration<E: RawRepresentable>(_ key: String, as type: E.Type = E.self) throws(WireDecodingError) -> E where E.RawValue == String {
        let s = try string(key)
        guard let e = E(rawValue: s) else { throw fail(key, "unknown value \"\(s)\"") }
        return e
    }

    func optionalEnumeration<E: RawRepresentable>(_ key: String, as type: E.Type = E.self) throws(WireDecodingError) -> E? where E.RawValue == String {
        has(key) ? try enumeration(key) : nil
    }
}
