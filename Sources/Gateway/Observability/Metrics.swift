import Foundation
import Locking

/// Counters and histograms for `GET /metrics` (Prometheus text format 0.0.4).
///
/// One lock guards everything: updates are a few additions per request, far cheaper than
/// the request itself, and a single lock keeps each scrape consistent.
public final class Metrics: Sendable {
    /// Upper bounds of the latency buckets, in seconds.
    public static let latencyBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private struct Histogram {
        var counts = [UInt64](repeating: 0, count: Metrics.latencyBuckets.count)
        var total: UInt64 = 0
        var sum: Double = 0
    }

    private struct Counts {
        var requests: [String: [String: UInt64]] = [:]   // command -> result -> count
        var latency: [String: Histogram] = [:]          // command -> histogram
        var statuses: [Int: UInt64] = [:]
        var storeCalls: [String: [String: UInt64]] = [:] // store -> outcome -> count
    }

    private let counts = LockedValueBox(Counts())
    private let openConnections: @Sendable () -> Int

    /// `openConnections` is read at scrape time (the HTTP server's gauge).
    public init(openConnections: @escaping @Sendable () -> Int = { 0 }) {
        self.openConnections = openConnections
    }

    /// Records one answered request: its command (or route), result code, HTTP status and duration.
    public func recordRequest(command: String, result: String, status: Int, seconds: Double) {
        let bucket = Metrics.latencyBuckets.firstIndex { seconds <= $0 }
        counts.withLock { c in
            c.requests[command, default: [:]][result, default: 0] += 1
            c.statuses[status, default: 0] += 1
            var h = c.latency[command] ?? Histogram()
            if let bucket { h.counts[bucket] += 1 }
            h.total += 1
            h.sum += seconds
            c.latency[command] = h
        }
    }

    /// Records one call to an outside store or provider and how it ended.
    public func recordStoreCall(store: String, outcome: String) {
        counts.withLock { $0.storeCalls[store, default: [:]][outcome, default: 0] += 1 }
    }

    /// The exposition text.
    public func render() -> String {
        let (requests, latency, statuses, storeCalls) = counts.withLock { ($0.requests, $0.latency, $0.statuses, $0.storeCalls) }
        var out = ""
        appendCounter(&out, "badge_requests_total", help: "Requests answered, by command and result code.",
                      labels: ("command", "result"), requests)
        out += "# HELP badge_http_responses_total Responses sent, by HTTP status.\n"
        out += "# TYPE badge_http_responses_total counter\n"
        for (status, n) in statuses.sorted(by: { $0.key < $1.key }) {
            out += "badge_http_responses_total{status=\"\(status)\"} \(n)\n"
        }
        out += "# HELP badge_request_duration_seconds Time from a complete request to its response, by command.\n"
        out += "# TYPE badge_request_duration_seconds histogram\n"
        for (command, h) in latency.sorted(by: { $0.key < $1.key }) {
            var cumulative: UInt64 = 0
            for (i, bound) in Metrics.latencyBuckets.enumerated() {
                cumulative += h.counts[i]
                out += "badge_request_duration_seconds_bucket{command=\"\(escape(command))\",le=\"\(bound)\"} \(cumulative)\n"
            }
            out += "badge_request_duration_seconds_bucket{command=\"\(escape(command))\",le=\"+Inf\"} \(h.total)\n"
            out += "badge_request_duration_seconds_sum{command=\"\(escape(command))\"} \(h.sum)\n"
            out += "badge_request_duration_seconds_count{command=\"\(escape(command))\"} \(h.total)\n"
        }
        appendCounter(&out, "badge_store_calls_total", help: "Calls to stores and payment providers, by outcome.",
                      labels: ("store", "outcome"), storeCalls)
        out += "# HELP badge_open_connections HTTP connections open now.\n"
        out += "# TYPE badge_open_connections gauge\n"
        out += "badge_open_connections \(openConnections())\n"
        return out
    }

    /// A counter with two labels, in a stable order.
    private func appendCounter(_ out: inout String, _ name: String, help: String, labels: (String, String),
                               _ counts: [String: [String: UInt64]]) {
        out += "# HELP \(name) \(help)\n# TYPE \(name) counter\n"
        for (first, inner) in counts.sorted(by: { $0.key < $1.key }) {
            for (second, n) in inner.sorted(by: { $0.key < $1.key }) {
                out += "\(name){\(labels.0)=\"\(escape(first))\",\(labels.1)=\"\(escape(second))\"} \(n)\n"
            }
        }
    }

    private func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
