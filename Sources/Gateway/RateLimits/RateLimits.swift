import Locking

/// The protocol's `rate_limited` for guessing (issue 8, README "Rate limits"): failed code
/// redemptions per purchase key and per peer address, and failed front tokens per peer
/// address. Addresses and keys live here, in memory, only; they are never logged or stored.
public final class RateLimits: Sendable {
    /// The rules; the defaults are the README's.
    public struct Configuration: Sendable, Hashable {
        public var codeFailuresPerKey: FailureLimiter.Rule
        public var codeFailuresPerAddress: FailureLimiter.Rule
        public var frontTokenFailuresPerAddress: FailureLimiter.Rule

        /// 10 failed redemptions a minute per key, 30 per address, 10 failed front tokens a
        /// minute per address; each blocks for a minute.
        public init(codeFailuresPerKey: FailureLimiter.Rule = .init(maxFailures: 10, windowSeconds: 60, blockSeconds: 60),
                    codeFailuresPerAddress: FailureLimiter.Rule = .init(maxFailures: 30, windowSeconds: 60, blockSeconds: 60),
                    frontTokenFailuresPerAddress: FailureLimiter.Rule = .init(maxFailures: 10, windowSeconds: 60, blockSeconds: 60)) {
            self.codeFailuresPerKey = codeFailuresPerKey
            self.codeFailuresPerAddress = codeFailuresPerAddress
            self.frontTokenFailuresPerAddress = frontTokenFailuresPerAddress
        }
    }

    private let codesByKey: LockedValueBox<FailureLimiter>
    private let codesByAddress: LockedValueBox<FailureLimiter>
    private let frontTokensByAddress: LockedValueBox<FailureLimiter>

    public init(_ configuration: Configuration = Configuration()) {
        codesByKey = LockedValueBox(FailureLimiter(rule: configuration.codeFailuresPerKey))
        codesByAddress = LockedValueBox(FailureLimiter(rule: configuration.codeFailuresPerAddress))
        frontTokensByAddress = LockedValueBox(FailureLimiter(rule: configuration.frontTokenFailuresPerAddress))
    }

    /// Seconds before a code redemption by `key` from `address` may be tried again, or nil.
    public func codeRedemptionRetryAfter(key: String, address: String, now: Int64) -> Int64? {
        let byKey = codesByKey.withLock { $0.retryAfter(key, now: now) }
        let byAddress = codesByAddress.withLock { $0.retryAfter(address, now: now) }
        return [byKey, byAddress].compactMap { $0 }.max()
    }

    /// A redemption by `key` from `address` failed as a guess does (`code_invalid`).
    public func codeRedemptionFailed(key: String, address: String, now: Int64) {
        codesByKey.withLock { _ = $0.recordFailure(key, now: now) }
        codesByAddress.withLock { _ = $0.recordFailure(address, now: now) }
    }

    /// Seconds before `address` may present a front token again, or nil.
    public func frontTokenRetryAfter(address: String, now: Int64) -> Int64? {
        frontTokensByAddress.withLock { $0.retryAfter(address, now: now) }
    }

    /// `address` presented a front token that does not match.
    public func frontTokenFailed(address: String, now: Int64) {
        frontTokensByAddress.withLock { _ = $0.recordFailure(address, now: now) }
    }
}
