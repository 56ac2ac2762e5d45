/// The id of one request: 128 bits from the system's cryptographic generator, printed as 32
/// lowercase hex digits. It is returned in `X-Request-Id` and written in the access line and in
/// every line the request's work logs, so an operator can join them; being random, it links
/// nothing else (it is never derived from the client's address, keys or headers).
public struct RequestID: Sendable, Hashable {
    /// The 32 hex digits.
    public let text: String

    /// A fresh random id.
    public init() {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64, low = generator.next() as UInt64
        text = Self.hex(high) + Self.hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The request whose work runs on this thread now, if any (bound with `$current.withValue`).
    @TaskLocal public static var current: RequestID?
}
