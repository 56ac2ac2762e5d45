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
        // 32 digits written into one buffer: formatting by radix and padding cost more than
        // the random draw (issue 17's profile).
        text = String(unsafeUninitializedCapacity: 32) { buffer in
            func write(_ value: UInt64, at offset: Int) {
                for i in 0..<16 {
                    let nibble = UInt8(truncatingIfNeeded: value >> (60 - 4 * UInt64(i))) & 0x0F
                    buffer[offset + i] = nibble < 10 ? 0x30 + nibble : 0x57 + nibble
                }
            }
            write(high, at: 0)
            write(low, at: 16)
            return 32
        }
    }

    /// The request whose work runs on this thread now, if any (bound with `$current.withValue`).
    @TaskLocal public static var current: RequestID?
}
