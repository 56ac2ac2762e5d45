/// A count per minute that every instance over one database shares, so a budget of calls to an
/// outside API (Play's subscription checks) holds for the deployment rather than for each process.
public protocol SharedMinuteCounter: Sendable {
    /// Adds one to `minute`'s count when it is below `limit`; whether it did. One atomic statement
    /// of its own, never part of a caller's transaction.
    func takeOne(minute: Int64, limit: Int) throws -> Bool
    /// Adds one to `minute`'s count whatever it is.
    func countOne(minute: Int64) throws
}
