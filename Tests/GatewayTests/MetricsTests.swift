import BadgeCore
import Foundation
import Gateway
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
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(object?["ts"] as? String == "2026-11-30T04:00:00Z")
        #expect(object?["path"] as? String == "/rpc\"\n")
        #expect(object?["status"] as? Int == 200)
        #expect(object?["command"] as? String == "getBadgeCatalog")
        #expect(object?["result"] as? String == "ok")
        #expect(object?["durationMs"] as? Double == 1.5)
        #expect(Set(object?.keys.map { $0 } ?? []) == ["ts", "method", "path", "status", "command", "result", "durationMs"])
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
