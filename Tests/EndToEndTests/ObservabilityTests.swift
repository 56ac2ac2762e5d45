import BadgeCore
import Crypto
import Foundation
import Glibc
import JSON
import Schema
import Storage
import TestSupport
import Testing

/// Issue 7 items 10 and 11, issue 8 items 3 and 7: logs and metrics as an operator reads them,
/// on the real binary.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ObservabilityTests {
    static let timestamp = #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#

    /// Every line of `text` parsed as a JSON object with an RFC 3339 UTC millisecond `ts`, a
    /// `level` and a `message`.
    func logLines(_ text: String, _ what: String) -> [JSONValue] {
        text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONValue.parse(String(line)), case .object = object else {
                Issue.record("\(what): not a JSON object: \(line)")
                return nil
            }
            let ts = object["ts"]?.stringValue ?? ""
            #expect(ts.range(of: Self.timestamp, options: .regularExpression) != nil, "\(what): \(line)")
            #expect(["info", "warning", "error"].contains(object["level"]?.stringValue ?? ""), "\(what): \(line)")
            #expect(object["message"]?.stringValue?.isEmpty == false, "\(what): \(line)")
            return object
        }
    }

    func isRequestID(_ text: String?) -> Bool {
        text?.range(of: "^[0-9a-f]{32}$", options: .regularExpression) != nil
    }

    @Test func everyLineIsJSONAndARequestIDJoinsTheResponseItsAccessLineAndItsErrorLine() throws {
        let service = try ServiceProcess()
        let code = try service.cli(["codes", "create", "--type", "supporter", "--months", "3"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // Make the next redemption fail inside the database, so the request logs an error line.
        let store = try SQLiteBadgeStore(path: service.data.file("badge-data/badges.sqlite"))
        try store.database.executeForTesting("""
            CREATE TRIGGER injected_failure BEFORE INSERT ON badge_code_redemptions
            BEGIN SELECT RAISE(ABORT, 'injected failure'); END
            """)
        let key = Ed25519PrivateKey()
        let failed = try HTTP.rpc(service, HTTP.envelope(["type": "redeemBadgeCode", "masterKey": .string(Base64URL.encode(SecureRandom.bytes(32))),
                                                           "code": .string(code)], key: key), key: key)
        #expect(failed.status == 500 && failed.response?.errorCode == .internal, "\(failed.text)")
        let failedID = try #require(failed.headers["x-request-id"])
        #expect(isRequestID(failedID))
        let health = try HTTP.request("GET", service.url + "/healthz")
        let missing = try HTTP.request("GET", service.url + "/nope")
        let healthID = try #require(health.headers["x-request-id"]), missingID = try #require(missing.headers["x-request-id"])
        #expect(isRequestID(healthID) && isRequestID(missingID))
        #expect(Set([failedID, healthID, missingID]).count == 3)
        #expect(service.stop() == 0)

        // standard error: JSON lines; the error line names the request that caused it
        let diagnostics = logLines(service.stderr, "stderr")
        #expect(diagnostics.count >= 3)
        let errors = diagnostics.filter { $0["level"] == "error" }
        #expect(errors.count == 1, "\(service.stderr)")
        #expect(errors.first?["requestId"] == .string(failedID), "\(service.stderr)")
        #expect(errors.first?["message"]?.stringValue?.contains("injected failure") == true, "\(service.stderr)")
        #expect(diagnostics.filter { $0["level"] != "error" }.allSatisfy { $0["requestId"] == nil })

        // standard output: one access line per response, under the id the client got
        let access = logLines(service.accessLog, "access log")
        #expect(access.count == 3, "\(service.accessLog)")
        let byID = Dictionary(uniqueKeysWithValues: access.compactMap { line in line["requestId"]?.stringValue.map { ($0, line) } })
        let failedLine = try #require(byID[failedID])
        #expect(failedLine["status"] == 500 && failedLine["route"] == "rpc" && failedLine["command"] == "redeemBadgeCode"
                && failedLine["result"] == "internal" && failedLine["method"] == "POST" && failedLine["path"] == "/rpc")
        #expect(byID[healthID]?["route"] == "healthz" && byID[healthID]?["status"] == 200)
        #expect(byID[missingID]?["route"] == "unrouted" && byID[missingID]?["status"] == 404)

        // no secret, code, key, signature or client address anywhere
        let everything = service.stderr + service.accessLog
        for secret in [code, key.publicKey.purchaseKeyText, "sig1=", "127.0.0.1\",", "\"127.0.0.1"] {
            #expect(!everything.contains(secret), "\(secret) logged")
        }
        #expect(!service.accessLog.contains("127.0.0.1"))
    }

    @Test func metricsParseWithTheReferenceParserAndKeepRoutesCommandsResultsAndStatusesApart() throws {
        let started = Date().timeIntervalSince1970
        let service = try ServiceProcess()
        let code = try service.cli(["codes", "create", "--type", "supporter", "--months", "3"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let key = Ed25519PrivateKey()
        func redeem(_ code: String) throws -> HTTPReply {
            try HTTP.rpc(service, HTTP.envelope(["type": "redeemBadgeCode", "masterKey": .string(Base64URL.encode(SecureRandom.bytes(32))),
                                                 "code": .string(code)], key: key), key: key)
        }
        #expect(try redeem(code).status == 200)
        #expect(try redeem("SB-0C0QS-XAQW1-N1VSA-R00Y3").response?.errorCode == .codeInvalid)
        #expect(try HTTP.request("GET", service.url + "/healthz").status == 200)
        #expect(try HTTP.request("GET", service.url + "/nope").status == 404)
        let tooLarge = try RawHTTP.exchange(port: service.port, "POST /rpc HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 99999999\r\n\r\n")
        #expect(tooLarge.status == 413)

        // A request is counted just after its response is written, so a scrape may come before the
        // last count lands: scrape again (for at most 5 s) until the five requests are all counted.
        var families: [PrometheusPeer.Family] = []
        let scrapeDeadline = Date().addingTimeInterval(5)
        repeat {
            let scrape = try HTTP.request("GET", service.url + "/metrics")
            #expect(scrape.status == 200 && scrape.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
            families = try PrometheusPeer.parse(scrape.text)
            let counted = families.first { $0.name == "badge_http_responses" }?.samples
                .filter { !$0.name.hasSuffix("_created") && $0.labels["route"] != "metrics" }.reduce(0) { $0 + $1.value } ?? 0
            if counted >= 5 { break }  // two /rpc redemptions, the 413, /healthz, /nope
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < scrapeDeadline
        func samples(_ family: String) -> [PrometheusPeer.Sample] { families.first { $0.name == family }?.samples ?? [] }
        func value(_ family: String, _ labels: [String: String] = [:]) -> Double? {
            samples(family).first { $0.labels == labels && !$0.name.hasSuffix("_created") }?.value
        }

        // routes, commands and protocol results each in their own label; statuses in their own metric
        #expect(value("badge_requests", ["route": "rpc", "command": "redeemBadgeCode", "result": "ok"]) == 1)
        #expect(value("badge_requests", ["route": "rpc", "command": "redeemBadgeCode", "result": "code_invalid"]) == 1)
        #expect(value("badge_requests", ["route": "healthz", "command": "", "result": ""]) == 1)
        let codes = Set(ErrorCode.all.map(\.rawValue) + ["ok", ""])
        for sample in samples("badge_requests") {
            #expect(codes.contains(sample.labels["result"] ?? "?"), "result \(sample.labels)")
            #expect(Set(sample.labels.keys) == ["route", "command", "result"])
        }
        #expect(value("badge_http_responses", ["route": "rpc", "status": "200"]) == 1)
        #expect(value("badge_http_responses", ["route": "rpc", "status": "422"]) == 1)
        #expect(value("badge_http_responses", ["route": "rpc", "status": "413"]) == 1)
        #expect(value("badge_http_responses", ["route": "unrouted", "status": "404"]) == 1)
        #expect(families.first { $0.name == "badge_request_duration_seconds" }?.type == "histogram")

        // the process, the build, the ledger, the issuer key, the database
        let version = try CLIResult.run(["--version"]).stdout.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(value("badge_build_info", ["version": try #require(version)]) == 1)
        #expect(try #require(value("process_cpu_seconds")) > 0)
        #expect(try #require(value("process_resident_memory_bytes")) > 1_000_000)
        #expect(try #require(value("process_open_fds")) >= 4)
        let start = try #require(value("process_start_time_seconds"))
        #expect(start >= started - 2 && start <= Date().timeIntervalSince1970, "\(start) vs \(started)")
        #expect(value("badge_ledger_entries", ["kind": "credit", "reason": "code"]) == 1)
        #expect(value("badge_ledger_entries", ["kind": "debit", "reason": "badge"]) == 1)
        #expect(value("badge_ledger_months", ["kind": "credit", "reason": "code"]) == 3)
        #expect(value("badge_ledger_months", ["kind": "debit", "reason": "badge"]) == 1)
        #expect(value("badge_credentials_issued", ["badge_type": "supporter", "key_index": "1"]) == 1)
        #expect(value("badge_purchases") == 1)
        #expect(value("badge_issuer_active_key_index") == 1)
        #expect(value("badge_database_read_ok") == 1)
        #expect(value("badge_log_lines_dropped") == 0)
        let size = try #require(value("badge_database_size_bytes"))
        #expect(service.stop() == 0)
        // after a clean stop the log is folded in: the file is exactly the size the scrape reported
        let file = try FileManager.default.attributesOfItem(atPath: service.data.file("badge-data/badges.sqlite"))[.size] as? Int
        #expect(file.map(Double.init) == size, "\(String(describing: file)) vs \(size)")
    }

    @Test func httpLayerRefusalsAreLoggedCountedAndOnRPCAreSchemaErrors() throws {
        let dir = TemporaryDirectory("refusals")
        let config = dir.file("badge-service.ini")
        try "[server]\nhead_timeout = 1\n".write(toFile: config, atomically: true, encoding: .utf8)
        let service = try ServiceProcess(data: dir, arguments: ["--config", config])
        let rpcHead = "POST /rpc HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
        let cases: [(name: String, status: Int, request: String)] = [
            ("framing", 400, rpcHead + "Content-Length: 5\r\nContent-Length: 6\r\n\r\n"),
            ("too large", 413, rpcHead + "Content-Length: 99999999\r\n\r\n"),
            ("target too long", 414, "POST /rpc?" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: t\r\n\r\n"),
            ("head too large", 431, rpcHead + "X-Padding: " + String(repeating: "p", count: 20_000) + "\r\n\r\n"),
            ("version", 505, "POST /rpc HTTP/2.0\r\nHost: t\r\n\r\n"),
            ("slow head", 408, rpcHead),
        ]
        var ids: [String: Int] = [:]
        for (name, status, request) in cases {
            let reply = try RawHTTP.exchange(port: service.port, request)
            #expect(reply.status == status, "\(name): \(reply.status)")
            let id = try #require(reply.headers["x-request-id"], "\(name)")
            #expect(isRequestID(id), "\(name)")
            ids[id] = status
            // the protocol's error document, valid against the schema
            let json = try #require(try? JSONValue.parse(reply.body), "\(name): \(String(decoding: reply.body, as: UTF8.self))")
            #expect(BadgeRPCSchema.shared.validateResponse(json).isEmpty, "\(name): \(json.text())")
            #expect((try? RPCResponse(json: json))?.errorCode == .badRequest, "\(name): \(json.text())")
            #expect(reply.headers["content-type"] == "application/json", "\(name)")
        }
        // the same refusal elsewhere keeps the server's own small document
        let elsewhere = try RawHTTP.exchange(port: service.port, "GET /healthz HTTP/2.0\r\nHost: t\r\n\r\n")
        #expect(elsewhere.status == 505)
        let plain = try JSONValue.parse(elsewhere.body)
        #expect(plain["error"] == "http_version_not_supported" && plain["status"] == 505)

        let scrape = try PrometheusPeer.parse(try HTTP.request("GET", service.url + "/metrics").text)
        let responses = scrape.first { $0.name == "badge_http_responses" }?.samples.filter { !$0.name.hasSuffix("_created") } ?? []
        for (route, status) in [("rpc", "400"), ("rpc", "413"), ("rpc", "431"), ("rpc", "505"), ("rpc", "408"), ("rpc", "414"),
                                ("healthz", "505")] {
            #expect(responses.first { $0.labels == ["route": route, "status": status] }?.value == 1, "\(route) \(status)")
        }
        #expect(service.stop() == 0)

        let access = logLines(service.accessLog, "access log")
        for (id, status) in ids {
            let line = try #require(access.first { $0["requestId"] == .string(id) }, "\(status)")
            #expect(line["status"]?.numberValue?.value == Double(status))
        }
        #expect(access.count == cases.count + 2)  // and the 505 elsewhere, and the scrape
    }

    /// Issue 8 item 3 on the release binary: standard output is a pipe nobody reads. Serving goes
    /// on, and the lines that did not fit are counted.
    @Test func anUnreadStandardOutputNeverStallsServing() throws {
        let release = Repository.root.appendingPathComponent(".build/release/badge-service").path
        guard FileManager.default.isExecutableFile(atPath: release) else {
            throw ServiceProcess.Failure("no release binary at \(release): run `swift build -c release --product badge-service` (scripts/test does)")
        }
        let unread = Pipe()
        let service = try ServiceProcess(executable: release, standardOutput: unread.fileHandleForWriting)
        defer { withExtendedLifetime(unread) {} }
        // An access line is about 200 bytes: 30,000 of them overflow the pipe (64 KiB) and the
        // sink's buffer (4 MiB) together.
        let request = Array("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n".utf8)
        var answered = 0
        for _ in 0..<6 {
            // a new connection every 5,000 requests (under the per-connection request limit)
            let connection = try RawHTTP.Connection(port: service.port)
            for _ in 0..<5000 {
                guard try connection.roundTrip(request) == 200 else { break }
                answered += 1
            }
        }
        #expect(answered == 30_000)
        // still answering, on a new connection too
        #expect(try HTTP.request("GET", service.url + "/healthz").status == 200)
        let scrape = try PrometheusPeer.parse(try HTTP.request("GET", service.url + "/metrics").text)
        let dropped = scrape.first { $0.name == "badge_log_lines_dropped" }?.samples.first { $0.name == "badge_log_lines_dropped_total" }?.value
        #expect((dropped ?? 0) > 0, "\(String(describing: dropped))")
        // a stop with unwritable lines still ends, within the flush's bound
        #expect(service.stop(within: 15) == 0)
    }
}

/// The reference Prometheus parser (Tests/Peers/prometheus_parse.py).
enum PrometheusPeer {
    struct Sample: Decodable {
        let name: String
        let labels: [String: String]
        let value: Double

        enum Keys: String, CodingKey { case name, labels, value }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            name = try c.decode(String.self, forKey: .name)
            labels = try c.decode([String: String].self, forKey: .labels)
            if let text = try? c.decode(String.self, forKey: .value) {
                value = text == "+Inf" ? .infinity : -.infinity
            } else {
                value = try c.decode(Double.self, forKey: .value)
            }
        }
    }

    struct Family: Decodable {
        let name: String
        let type: String
        let samples: [Sample]
    }

    static func parse(_ text: String) throws -> [Family] {
        try JSONDecoder().decode([Family].self, from: PeerPython.run(script: "prometheus_parse.py", input: Data(text.utf8)))
    }
}

/// HTTP/1.1 over a plain socket, for what URLSession will not send.
enum RawHTTP {
    struct Reply {
        let status: Int
        let headers: [String: String]
        let body: [UInt8]
    }

    /// Sends `request` on a new connection and reads until the server closes it (at most 10 s).
    static func exchange(port: Int, _ request: String) throws -> Reply {
        let connection = try Connection(port: port)
        try connection.send(Array(request.utf8))
        return parse(connection.readToEnd())
    }

    static func parse(_ bytes: [UInt8]) -> Reply {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            return Reply(status: 0, headers: [:], body: [])
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(head.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Reply(status: status, headers: headers, body: Array(bytes[(end + 4)...]))
    }

    final class Connection {
        let fd: Int32

        init(port: Int) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                // deinit closes fd (self is fully initialised); a close here would be a second one.
                throw ServiceProcess.Failure("connect to 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
            }
        }

        deinit { close(fd) }

        func send(_ bytes: [UInt8]) throws {
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                // The server may refuse and close before it has read everything (431, 414).
                guard n > 0 else { return }
                offset += n
            }
        }

        func readToEnd() -> [UInt8] {
            var out: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = recv(fd, &buffer, buffer.count, 0)
                if n <= 0 { return out }
                out += buffer[0..<n]
            }
        }

        /// Sends one request with no body and reads its response (headers and a Content-Length
        /// body); returns the status.
        func roundTrip(_ request: [UInt8]) throws -> Int {
            try send(request)
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = recv(fd, &buffer, buffer.count, 0)
                guard n > 0 else { return 0 }
                received += buffer[0..<n]
                let reply = RawHTTP.parse(received)
                if reply.status != 0, let length = reply.headers["content-length"].flatMap(Int.init), reply.body.count >= length {
                    return reply.status
                }
            }
        }
    }
}
