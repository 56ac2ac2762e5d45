import HTTPServer

/// The connection policy's and the accept loop's counters (issue 8): the limit in force,
/// refusals by reason, idle evictions, and `accept` failures for lack of descriptors.
public struct ConnectionMetrics: MetricsSource {
    private let statistics: @Sendable () -> ConnectionStatistics?

    /// `statistics` is read at scrape time (the HTTP server's, nil before it exists).
    public init(statistics: @escaping @Sendable () -> ConnectionStatistics?) {
        self.statistics = statistics
    }

    public func families() -> [MetricFamily] {
        guard let c = statistics() else { return [] }
        var limit = MetricFamily("badge_max_connections", .gauge, help: "Connection limit in force (after RLIMIT_NOFILE).")
        limit.add([], Double(c.maxConnections))
        var refused = MetricFamily("badge_connections_refused_total", .counter, help: "New connections answered 503, by reason.")
        refused.add([("reason", "address_full")], Double(c.refusedAddressFull))
        refused.add([("reason", "table_full")], Double(c.refusedTableFull))
        var evicted = MetricFamily("badge_connections_evicted_total", .counter, help: "Idle connections closed to make room for new ones.")
        evicted.add([], Double(c.evictedIdle))
        var acceptErrors = MetricFamily("badge_accept_errors_total", .counter, help: "accept() failures for lack of descriptors, by errno.")
        acceptErrors.add([("errno", "EMFILE")], Double(c.acceptEMFILE))
        acceptErrors.add([("errno", "ENFILE")], Double(c.acceptENFILE))
        return [limit, refused, evicted, acceptErrors]
    }
}
