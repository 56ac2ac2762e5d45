/// Size limits applied while parsing requests. Defaults are the `[server]` limits of the README;
/// going over a limit is answered and the connection closed.
public struct HTTPLimits: Sendable, Hashable {
    /// Longest request-target in octets (default 8 KiB); longer → 414.
    public var maxTargetLength: Int
    /// Longest single field line (name, colon, value) in octets (default 8 KiB); longer → 431.
    public var maxFieldLineLength: Int
    /// Largest header section (all field lines and their CRLFs, not the request-line) in octets
    /// (default 16 KiB); larger → 431. The whole head is therefore at most about 24 KiB.
    public var maxHeaderSectionSize: Int
    /// Most field lines in the header section, and separately in a trailer section
    /// (default 100); more → 431.
    public var maxHeaderFields: Int
    /// Largest body in octets, by Content-Length or after de-chunking (default 64 KiB); larger → 413,
    /// answered as soon as it is known (a Content-Length over the limit is refused before any body).
    public var maxBodySize: Int
    /// Total octets of chunk extensions allowed in one chunked body (default 1 KiB); more → 400.
    public var maxChunkExtensionSize: Int
    /// Largest trailer section of a chunked body (its field lines with their CRLFs), in octets
    /// (default 4 KiB); larger → 431. Trailer fields are checked with the header rules and then
    /// discarded.
    public var maxTrailerSectionSize: Int
    /// Empty lines (CRLF) tolerated before a request-line (default 4, RFC 9112 §2.2); more → 400.
    public var maxLeadingEmptyLines: Int
    /// Requests served on one connection before the server closes it (with `Connection: close`
    /// on the last response; default 10 000), so no client holds one connection forever.
    public let maxRequestsPerConnection: Int

    /// Limits with the documented defaults; pass only what you want to change.
    public init(maxTargetLength: Int = 8 * 1024, maxFieldLineLength: Int = 8 * 1024,
                maxHeaderSectionSize: Int = 16 * 1024, maxHeaderFields: Int = 100,
                maxBodySize: Int = 64 * 1024, maxChunkExtensionSize: Int = 1024,
                maxTrailerSectionSize: Int = 4 * 1024, maxLeadingEmptyLines: Int = 4,
                maxRequestsPerConnection: Int = 10_000) {
        self.maxTargetLength = maxTargetLength
        self.maxFieldLineLength = maxFieldLineLength
        self.maxHeaderSectionSize = maxHeaderSectionSize
        self.maxHeaderFields = maxHeaderFields
        self.maxBodySize = maxBodySize
        self.maxChunkExtensionSize = maxChunkExtensionSize
        self.maxTrailerSectionSize = maxTrailerSectionSize
        self.maxLeadingEmptyLines = maxLeadingEmptyLines
        self.maxRequestsPerConnection = max(1, maxRequestsPerConnection)
    }
}
