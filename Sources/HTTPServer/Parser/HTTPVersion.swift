/// The protocol version of a request line (`HTTP/1.0`, `HTTP/1.1`).
///
/// The parser only lets major version 1 through (anything else is answered 505), so a
/// responder sees `1.0` or `1.x`; every `1.x` with x ≥ 1 has HTTP/1.1 semantics.
public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    /// The major version digit.
    public let major: UInt8
    /// The minor version digit.
    public let minor: UInt8

    /// A version from its two digits.
    public init(major: UInt8, minor: UInt8) {
        self.major = major
        self.minor = minor
    }

    /// `HTTP/1.0`: connections close after each response unless the client asks for keep-alive.
    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    /// `HTTP/1.1`: connections persist unless either side says `Connection: close`.
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)

    /// True for 1.1 and later 1.x versions, which default to persistent connections and may
    /// use chunked transfer coding and `Expect: 100-continue`.
    public var hasHTTP11Semantics: Bool { major == 1 && minor >= 1 }

    public var description: String { "HTTP/\(major).\(minor)" }
}
