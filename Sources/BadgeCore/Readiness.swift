/// Whether a part of the service can do its work now (`GET /readyz`), and when it cannot, why,
/// in one line naming what failed.
public enum Readiness: Sendable, Equatable {
    case ready
    case notReady(reason: String)

    /// This readiness when not ready, else `next()`: the first part that fails gives the reason.
    public func and(_ next: () -> Readiness) -> Readiness {
        if case .notReady = self { return self }
        return next()
    }

    /// The reason, nil when ready.
    public var reason: String? {
        if case .notReady(let reason) = self { return reason }
        return nil
    }
}
