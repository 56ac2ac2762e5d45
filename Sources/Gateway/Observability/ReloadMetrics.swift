/// `badge_reload_failures_total`: reloads (SIGHUP, a changed key file) that failed and left the
/// service on what it had.
public struct ReloadMetrics: MetricsSource {
    private let failures: @Sendable () -> Int

    /// `failures` is read at scrape time.
    public init(failures: @escaping @Sendable () -> Int) {
        self.failures = failures
    }

    public func families() -> [MetricFamily] {
        var family = MetricFamily("badge_reload_failures_total", .counter,
                                  help: "Reloads (SIGHUP, a changed issuer key file) that failed; the service kept what it had.")
        family.add([], Double(failures()))
        return [family]
    }
}
