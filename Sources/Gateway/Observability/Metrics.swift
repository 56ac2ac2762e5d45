import Foundation
import Locking

/// Counters and histograms for `GET /metrics` (Prometheus text format 0.0.4).
///
/// Requests are counted as they are answered; `sources` (the process, the database, the issuer
/// keys) are read at scrape time. One lock guards the counters: updates are a few additions per
/// request, far cheaper than the request itself, and a single lock keeps each scrape consistent.
///
/// Labels: `route` is the HTTP route (`rpc`, `healthz`, …, `unrouted` for a path no route
/// serves, `none` when the request-line could not be read); `command` is the RPC command
/// (empty elsewhere, and for an RPC body that names none); `result` is the protocol's result
/// code (`ok` or an error code; empty outside RPC); the HTTP status has its own label.
public final class Metrics: Sendable {
    /// Upper bounds of the latency buckets, in seconds.
    public static let latencyBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private struct Histogram {
        var counts = [UInt64](repeating: 0, count: Metrics.latencyBuckets.count)
        var total: UInt64 = 0
        var sum: Double = 0

        mutating func record(bucket: Int?, seconds: Double) {
            if let bucket { counts[bucket] += 1 }
            total += 1
            sum += seconds
        }
    }

    private struct RequestKey: Hashable, Comparable {
        let route: String, command: String, result: String
        static func < (a: Self, b: Self) -> Bool { (a.route, a.command, a.result) < (b.route, b.command, b.result) }
    }

    private struct RouteCommand: Hashable, Comparable {
        let route: String, command: String
        static func < (a: Self, b: Self) -> Bool { (a.route, a.command) < (b.route, b.command) }
    }

    private struct RouteStatus: Hashable, Comparable {
        let route: String, status: Int
        static func < (a: Self, b: Self) -> Bool { (a.route, a.status) < (b.route, b.status) }
    }

    private struct Counts {
        var requests: [RequestKey: UInt64] = [:]
        var latency: [RouteCommand: Histogram] = [:]
        var responses: [RouteStatus: UInt64] = [:]
        var storeCalls: [String: [String: UInt64]] = [:] // store -> outcome -> count
    }

    private let counts = LockedValueBox(Counts())
    private let version: String
    private let openConnections: @Sendable () -> Int
    private let logLinesDropped: @Sendable () -> UInt64
    private let sources: [any MetricsSource]

    /// `openConnections` and `logLinesDropped` are read at scrape time (the HTTP server's gauge,
    /// the access log's sink), as are `sources`; `version` goes into `badge_build_info`.
    public init(version: String = "unknown", openConnections: @escaping @Sendable () -> Int = { 0 },
                logLinesDropped: @escaping @Sendable () -> UInt64 = { 0 }, sources: [any MetricsSource] = []) {
        self.version = version
        self.openConnections = openConnections
        self.logLinesDropped = logLinesDropped
        self.sources = sources
    }

    /// Records one request a route answered, with its duration.
    public func recordRequest(route: String, command: String?, result: String?, status: Int, seconds: Double) {
        let bucket = Metrics.latencyBuckets.firstIndex { seconds <= $0 }
        let key = RequestKey(route: route, command: command ?? "", result: result ?? "")
        counts.withLock { c in
            c.requests[key, default: 0] += 1
            c.responses[RouteStatus(route: route, status: status), default: 0] += 1
            // Updated in place: a copy taken out and stored back copied the bucket array every time.
            c.latency[RouteCommand(route: route, command: key.command), default: Histogram()].record(bucket: bucket, seconds: seconds)
        }
    }

    /// Records a refusal the HTTP layer made before a request reached a route (400, 408, 413, …).
    public func recordRefusal(route: String, status: Int) {
        counts.withLock { $0.responses[RouteStatus(route: route, status: status), default: 0] += 1 }
    }

    /// Records one call to an outside store or provider and how it ended.
    public func recordStoreCall(store: String, outcome: String) {
        counts.withLock { $0.storeCalls[store, default: [:]][outcome, default: 0] += 1 }
    }

    /// The exposition text. Reads `sources`, which may touch the database: call it off the loops.
    public func render() -> String {
        let c = counts.withLock { $0 }
        var families: [MetricFamily] = []

        var requests = MetricFamily("badge_requests_total", .counter,
                                    help: "Requests answered by a route, by route, RPC command and protocol result code.")
        for (key, n) in c.requests.sorted(by: { $0.key < $1.key }) {
            requests.add([("route", key.route), ("command", key.command), ("result", key.result)], Double(n))
        }
        families.append(requests)

        var responses = MetricFamily("badge_http_responses_total", .counter,
                                     help: "Responses sent, HTTP-layer refusals included, by route and HTTP status.")
        for (key, n) in c.responses.sorted(by: { $0.key < $1.key }) {
            responses.add([("route", key.route), ("status", String(key.status))], Double(n))
        }
        families.append(responses)

        var latency = MetricFamily("badge_request_duration_seconds", .histogram,
                                   help: "Time from a complete request to its response, by route and RPC command.")
        for (key, h) in c.latency.sorted(by: { $0.key < $1.key }) {
            let labels = [("route", key.route), ("command", key.command)]
            var cumulative: UInt64 = 0
            for (i, bound) in Metrics.latencyBuckets.enumerated() {
                cumulative += h.counts[i]
                latency.samples.append(.init(name: "badge_request_duration_seconds_bucket", labels: labels + [("le", "\(bound)")],
                                             value: Double(cumulative)))
            }
            latency.samples.append(.init(name: "badge_request_duration_seconds_bucket", labels: labels + [("le", "+Inf")],
                                         value: Double(h.total)))
            latency.samples.append(.init(name: "badge_request_duration_seconds_sum", labels: labels, value: h.sum))
            latency.samples.append(.init(name: "badge_request_duration_seconds_count", labels: labels, value: Double(h.total)))
        }
        families.append(latency)

        var storeCalls = MetricFamily("badge_store_calls_total", .counter, help: "Calls to stores and payment providers, by outcome.")
        for (store, outcomes) in c.storeCalls.sorted(by: { $0.key < $1.key }) {
            for (outcome, n) in outcomes.sorted(by: { $0.key < $1.key }) {
                storeCalls.add([("store", store), ("outcome", outcome)], Double(n))
            }
        }
        families.append(storeCalls)

        families.append(MetricFamily("badge_open_connections", .gauge, help: "HTTP connections open now.",
                                     samples: [.init(name: "badge_open_connections", value: Double(openConnections()))]))
        families.append(MetricFamily("badge_log_lines_dropped_total", .counter,
                                     help: "Access-log lines dropped because standard output did not take them in time.",
                                     samples: [.init(name: "badge_log_lines_dropped_total", value: Double(logLinesDropped()))]))
        families.append(MetricFamily("badge_build_info", .gauge, help: "The running build; the value is always 1.",
                                     samples: [.init(name: "badge_build_info", labels: [("version", version)], value: 1)]))
        for source in sources { families += source.families() }
        return families.map(\.text).joined()
    }
}
