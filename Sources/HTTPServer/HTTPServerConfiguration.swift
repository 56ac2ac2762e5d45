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
    /// Most connections open at once across all loops (default ``defaultMaxConnections``). Further
    /// connections are accepted and closed at once, which costs the existing ones nothing.
    public let maxConnections: Int
    /// 10 000 connections.
    public static let defaultMaxConnections = 10_000
    /// Called on the loop thread after each response to a dispatched request has been handed to
    /// the connection (before it is fully written), with the time from dispatch to response in
    /// nanoseconds — for access logs and metrics. Refusals the server makes before a request
    /// exists (framing errors, 408) are not reported. Keep it cheap; nil costs nothing.
    public let onResponse: (@Sendable (HTTPRequest, HTTPResponse, UInt64) -> Void)?

    /// A configuration with documented defaults; pass only what you want to change.
    public init(host: String = "127.0.0.1", port: Int = 8080, limits: HTTPLimits = HTTPLimits(),
                timeouts: HTTPTimeouts = HTTPTimeouts(), loopCount: Int = HTTPServerConfiguration.onlineCPUs,
                maxConnections: Int = HTTPServerConfiguration.defaultMaxConnections,
                onResponse: (@Sendable (HTTPRequest, HTTPResponse, UInt64) -> Void)? = nil) {
        self.host = host
        self.port = port
        self.limits = limits
        self.timeouts = timeouts
        self.loopCount = max(1, loopCount)
        self.maxConnections = max(1, maxConnections)
        self.onResponse = onResponse
    }

    /// Number of online CPUs (at least 1).
    public static var onlineCPUs: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}
