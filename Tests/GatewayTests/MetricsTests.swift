import BadgeCore
import Foundation
import Gateway
import JSON
import Locking
import Logging
import Testing

@Suite struct MetricsTests {
    @Test func rendersRoutesCommandsResultsAndStatusesInTheirOwnLabels() {
        let metrics = Metrics(version: "9.8.7", openConnections: { 7 }, logLinesDropped: { 3 })
        metrics.recordRequest(route: "rpc", command: "getBadgeCatalog", result: "ok", status: 200, seconds: 0.0004)
        metrics.recordRequest(route: "rpc", command: "getBadgeCatalog", result: "ok", status: 200, seconds: 0.003)
        metrics.recordRequest(route: "rpc", command: "redeemBadgeCode", result: "code_invalid", status: 422, seconds: 20)
        metrics.recordRequest(route: "healthz", command: nil, result: nil, status: 200, seconds: 0)
        metrics.recordRefusal(route: "rpc", status: 413)
        metrics.recordStoreCall(store: "google", outcome: "unavailable")
        let text = metrics.render()
        #expect(text.contains("badge_requests_total{route=\"rpc\",command=\"getBadgeCatalog\",result=\"ok\"} 2\n"))
        #expect(text.contains("badge_requests_total{route=\"rpc\",command=\"redeemBadgeCode\",result=\"code_invalid\"} 1\n"))
        // outside RPC there is no command and no protocol result; the status says what happened
        #expect(text.contains("badge_requests_total{route=\"healthz\",command=\"\",result=\"\"} 1\n"))
        #expect(text.contains("badge_http_responses_total{route=\"rpc\",status=\"200\"} 2\n"))
        #expect(text.contains("badge_http_responses_total{route=\"rpc\",status=\"413\"} 1\n"))
        #expect(text.contains("badge_http_responses_total{route=\"healthz\",status=\"200\"} 1\n"))
        // a refusal never reached a route's handler: it is not a request of badge_requests_total
        #expect(!text.contains("result=\"413\""))
        #expect(text.contains("badge_request_duration_seconds_bucket{route=\"rpc\",command=\"getBadgeCatalog\",le=\"0.0005\"} 1\n"))
        #expect(text.contains("badge_request_duration_seconds_bucket{route=\"rpc\",command=\"getBadgeCatalog\",le=\"0.005\"} 2\n"))
        // 20 s exceeds every finite bucket, so only +Inf counts it
        #expect(text.contains("badge_request_duration_seconds_bucket{route=\"rpc\",command=\"redeemBadgeCode\",le=\"10.0\"} 0\n"))
        #expect(text.contains("badge_request_duration_seconds_bucket{route=\"rpc\",command=\"redeemBadgeCode\",le=\"+Inf\"} 1\n"))
        #expect(text.contains("badge_request_duration_seconds_count{route=\"rpc\",command=\"getBadgeCatalog\"} 2\n"))
        #expect(text.contains("badge_store_calls_total{store=\"google\",outcome=\"unavailable\"} 1\n"))
        #expect(text.contains("badge_open_connections 7\n"))
        #expect(text.contains("badge_log_lines_dropped_total 3\n"))
        #expect(text.contains("badge_build_info{version=\"9.8.7\"} 1\n"))
        // every sample line belongs to a declared family
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let name = line.prefix { $0 != "{" && $0 != " " }
            let family = ["_bucket", "_sum", "_count"].reduce(String(name)) { n, s in n.hasSuffix(s) ? String(n.dropLast(s.count)) : n }
            #expect(text.contains("# TYPE \(family) "))
        }
    }

    @Test func labelValuesAreEscaped() {
        var family = MetricFamily("x_total", .counter, help: "h")
        family.add([("a", "q\"b\\n\nz")], 1.5)
        #expect(family.text == "# HELP x_total h\n# TYPE x_total counter\nx_total{a=\"q\\\"b\\\\n\\nz\"} 1.5\n")
    }

    @Test func processMetricsComeFromProc() throws {
        let families = ProcessMetrics().families()
        func value(_ name: String) -> Double? { families.first { $0.name == name }?.samples.first?.value }
        let rss = try #require(value("process_resident_memory_bytes"))
        #expect(rss > 1_000_000)
        let start = try #require(value("process_start_time_seconds"))
        #expect(abs(start - Date().timeIntervalSince1970) < 24 * 3600)
        #expect(start <= Date().timeIntervalSince1970)
        #expect(try #require(value("process_cpu_seconds_total")) > 0)
        // A descriptor opened now is counted. Other suites open and close descriptors in
        // parallel (sockets, databases, background checkpoints), so a count that moved for
        // them is taken again; one that never counts ours fails every attempt.
        func openDescriptors() -> Double? {
            ProcessMetrics().families().first { $0.name == "process_open_fds" }?.samples.first?.value
        }
        var counted = false
        for _ in 0..<50 where !counted {
            let before = try #require(openDescriptors())
            let fd = open("/dev/null", O_RDONLY)
            let after = try #require(openDescriptors())
            close(fd)
            counted = after == before + 1
        }
        #expect(counted, "a descriptor opened between two counts was never counted")
    }
}

@Suite struct AccessLogTests {
    @Test func writesOneJSONLinePerResponseWithTheRequestID() throws {
        let sink = LockedValueBox<[String]>([])
        let log = AccessLog(write: { line in sink.withLock { $0.append(line) } })
        let id = RequestID()
        log.record(requestID: id, method: "POST", path: "/rpc\"\n", route: "rpc", command: "getBadgeCatalog", status: 200,
                   result: "ok", seconds: 0.0015, at: LogTime(milliseconds: 1_764_544_284_123))
        let lines = sink.withLock { $0 }
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        // Members in a fixed order, the path's quote and newline escaped, the duration in whole microseconds.
        #expect(line == #"{"ts":"2025-11-30T23:11:24.123Z","level":"info","message":"request","requestId":"\#(id.text)","method":"POST","path":"/rpc\"\n","route":"rpc","command":"getBadgeCatalog","status":200,"result":"ok","durationMs":1.5}"# + "\n")
        let object = try JSONValue.parse(line)
        #expect(object["path"] == "/rpc\"\n")
        #expect(object["durationMs"]?.numberValue?.value == 1.5)
    }
}
