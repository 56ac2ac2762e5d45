import BadgeCore
import Foundation
import Gateway
import JSON
import Locking
import Testing

@Suite struct MetricsTests {
    @Test func rendersCountersHistogramsAndGauge() {
        let metrics = Metrics(openConnections: { 7 })
        metrics.recordRequest(command: "getBadgeCatalog", result: "ok", status: 200, seconds: 0.0004)
        metrics.recordRequest(command: "getBadgeCatalog", result: "ok", status: 200, seconds: 0.003)
        metrics.recordRequest(command: "redeemBadgeCode", result: "code_invalid", status: 422, seconds: 20)
        metrics.recordStoreCall(store: "google", outcome: "unavailable")
        let text = metrics.render()
        #expect(text.contains("badge_requests_total{command=\"getBadgeCatalog\",result=\"ok\"} 2\n"))
        #expect(text.contains("badge_requests_total{command=\"redeemBadgeCode\",result=\"code_invalid\"} 1\n"))
        #expect(text.contains("badge_http_responses_total{status=\"200\"} 2\n"))
        #expect(text.contains("badge_request_duration_seconds_bucket{command=\"getBadgeCatalog\",le=\"0.0005\"} 1\n"))
        #expect(text.contains("badge_request_duration_seconds_bucket{command=\"getBadgeCatalog\",le=\"0.005\"} 2\n"))
        // 20 s exceeds every finite bucket, so only +Inf counts it
        #expect(text.contains("badge_request_duration_seconds_bucket{command=\"redeemBadgeCode\",le=\"10.0\"} 0\n"))
        #expect(text.contains("badge_request_duration_seconds_bucket{command=\"redeemBadgeCode\",le=\"+Inf\"} 1\n"))
        #expect(text.contains("badge_request_duration_seconds_count{command=\"getBadgeCatalog\"} 2\n"))
        #expect(text.contains("badge_store_calls_total{store=\"google\",outcome=\"unavailable\"} 1\n"))
        #expect(text.contains("badge_open_connections 7\n"))
        // every sample line belongs to a declared family
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let name = line.prefix { $0 != "{" && $0 != " " }
            let family = ["_bucket", "_sum", "_count"].reduce(String(name)) { n, s in n.hasSuffix(s) ? String(n.dropLast(s.count)) : n }
            #expect(text.contains("# TYPE \(family) "))
        }
    }
}

@Suite struct AccessLogTests {
    @Test func writesOneJSONLinePerRequest() throws {
        let sink = LockedValueBox<[String]>([])
        let log = AccessLog(write: { line in sink.withLock { $0.append(line) } }, flushInterval: nil)
        let t = Timestamp(CivilDate(year: 2026, month: 11, day: 30), hour: 4)
        log.record(at: t, method: "POST", path: "/rpc\"\n", status: 200, command: "getBadgeCatalog", result: "ok", seconds: 0.0015)
        let lines = sink.withLock { $0 }
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        #expect(line.hasSuffix("}\n"))
        // Members in a fixed order, the path's quote and newline escaped, the duration in whole microseconds.
        #expect(line == #"{"ts":"2026-11-30T04:00:00Z","method":"POST","path":"/rpc\"\n","status":200,"command":"getBadgeCatalog","result":"ok","durationMs":1.5}"# + "\n")
        let object = try JSONValue.parse(line)
        #expect(object["path"] == "/rpc\"\n")
        #expect(object["durationMs"]?.numberValue?.value == 1.5)
    }

    @Test func buffersUntilFlushed() {
        let sink = LockedValueBox<[String]>([])
        let log = AccessLog(write: { line in sink.withLock { $0.append(line) } }, flushInterval: 3600)
        let t = Timestamp(CivilDate(year: 2026, month: 11, day: 30))
        for _ in 0..<3 { log.record(at: t, method: "GET", path: "/healthz", status: 200, command: "healthz", result: "ok", seconds: 0) }
        #expect(sink.withLock { $0 }.isEmpty)
        log.flush()
        let flushed = sink.withLock { $0 }
        #expect(flushed.count == 1)
        #expect(flushed.first?.split(separator: "\n").count == 3)
    }
}
