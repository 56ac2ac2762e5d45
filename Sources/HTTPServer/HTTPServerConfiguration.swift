import Glibc

/// Everything the server needs besides its responder.
public struct HTTPServerConfiguration: Sendable {
    /// Address to bind: an IPv4 or IPv6 literal or a host name (default `127.0.0.1`).
    public let host: String
    /// TCP port to bind; 0 picks a free port, which `HTTPServer.start()` returns (default 8080).
    public let port: Int
    /// Parser size limits.
    public let limits: HTTPLimits
    /// Connection deadlines.
    public let timeouts: HTTPTimeouts
    /// Event-loop threads, each with its own epoll instance, sharing one listening socket
    /// (default: one per online CPU).
    public let loopCount: Int
    /// Most connections open at once across all loops (default ``defaultMaxConnections``), lowered
    /// at start to what `RLIMIT_NOFILE` allows. See ``ConnectionPolicy`` for who gets a slot;
    /// a refused connection is answered 503 with `Retry-After` and closed.
    public let maxConnections: Int
    /// 10 000 connections.
    public static let defaultMaxConnections = 10_000
    /// Most connections from one peer address (default: a 40th of `maxConnections`, 250 of 10 000).
    public let maxConnectionsPerAddress: Int?
    /// Free slots below which idle connections are evicted, oldest first (default: a 50th).
    public let idleReserve: Int?
    /// Request bytes all connections together may hold in buffers (partial heads, bodies being
    /// received), split evenly between the loops (default 128 MiB, so that with 10 000
    /// connections the process stays under 256 MiB). A request whose buffer grows past it is
    /// answered 503 with `Retry-After` and its connection closed.
    public let maxBufferedRequestBytes: Int
    /// 128 MiB.
    public static let defaultMaxBufferedRequestBytes = 128 << 20
    /// Descriptors kept for everything but connections (database, logs, epoll, listeners):
    /// `maxConnections` is lowered to `RLIMIT_NOFILE` minus this (default 64).
    public let descriptorReserve: Int
    /// Peers believed about their clients (``ClientAddress``): their `Forwarded` /
    /// `X-Forwarded-For` fields, or their PROXY header, name the address per-address limits
    /// count (default: none).
    public let trustedProxies: TrustedProxies
    /// A trusted peer's connection must open with a PROXY protocol header (v1 or v2), which
    /// names its client; one without is closed (default off). Others' are never read as one.
    public let proxyProtocol: Bool
    /// Called on a loop thread with one line for the operator when something needs attention
    /// (descriptors running out), at most once per 10 s per kind. Keep it cheap.
    public let onError: (@Sendable (String) -> Void)?
    /// Called on the loop thread after each response to a dispatched request has been handed to
    /// the connection (before it is fully written), with the time from dispatch to response in
    /// nanoseconds — for access logs and metrics. Refusals the server makes before a request
    /// exists (framing errors, 408) are not reported. Keep it cheap; nil costs nothing.
    public let onResponse: (@Sendable (HTTPRequest, HTTPResponse, UInt64) -> Void)?

    /// A configuration with documented defaults; pass only what you want to change.
    public init(host: String = "127.0.0.1", port: Int = 8080, limits: HTTPLimits = HTTPLimits(),
                timeouts: HTTPTimeouts = HTTPTimeouts(), loopCount: Int = HTTPServerConfiguration.onlineCPUs,
                maxConnections: Int = HTTPServerConfiguration.defaultMaxConnections,
                maxConnectionsPerAddress: Int? = nil, idleReserve: Int? = nil, descriptorReserve: Int = 64,
                maxBufferedRequestBytes: Int = HTTPServerConfiguration.defaultMaxBufferedRequestBytes,
                trustedProxies: TrustedProxies = .none, proxyProtocol: Bool = false,
                onResponse: (@Sendable (HTTPRequest, HTTPResponse, UInt64) -> Void)? = nil,
                onError: (@Sendable (String) -> Void)? = nil) {
        self.host = host
        self.port = port
        self.limits = limits
        self.timeouts = timeouts
        self.loopCount = max(1, loopCount)
        self.maxConnections = max(1, maxConnections)
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.idleReserve = idleReserve
        self.descriptorReserve = max(0, descriptorReserve)
        self.maxBufferedRequestBytes = max(0, maxBufferedRequestBytes)
        self.trustedProxies = trustedProxies
        self.proxyProtocol = proxyProtocol
        self.onResponse = onResponse
        self.onError = onError
    }

    /// Number of online CPUs (at least 1).
    public static var onlineCPUs: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}
