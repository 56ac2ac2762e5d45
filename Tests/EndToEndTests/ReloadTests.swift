import BadgeCore
import Crypto
import Foundation
import Glibc
import JSON
import RequestAuth
import Schema
import TestSupport
import Testing

/// Issue 7 item 7, on the real binary: `issuer activate`, SIGHUP reloads keys and catalog and
/// never exits, a key activated while serving is used without a restart, and a failed reload
/// keeps what was in use.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ReloadTests {
    let dir = TemporaryDirectory("reload")

    func redeem(_ code: String, on service: ServiceProcess) throws -> HTTPReply {
        let key = Ed25519PrivateKey()
        let body = RPCRequest(purchaseKey: key.publicKey.purchaseKeyText,
                              command: .redeemBadgeCode(masterKey: SecureRandom.bytes(32), code: code)).json.serialized()
        let signed = try RequestSigner(key: key).sign(method: "POST", authority: "127.0.0.1:\(service.port)", path: "/rpc",
                                                      body: body, created: Timestamp(seconds: Int64(Date().timeIntervalSince1970)))
        var headers = ["Content-Type": "application/json"]
        for f in signed.fields { headers[f.name] = f.value }
        return try HTTP.request("POST", service.url + "/rpc", body: body, headers: headers)
    }

    /// A new issuer key pair from `issuer keygen`: base64url secret and public key.
    func keygen() throws -> (secretKey: String, publicKey: String) {
        let keys = try JSONValue.parse(Array(try CLIResult.run(["issuer", "keygen"], in: dir.url).stdout.utf8))
        return (try #require(keys["secretKey"]?.stringValue), try #require(keys["publicKey"]?.stringValue))
    }

    /// The issuer key index of a fresh redemption's credential.
    func signingIndex(_ service: ServiceProcess) throws -> Int? {
        let code = try service.cli(["codes", "create", "--type", "supporter", "--months", "1"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let reply = try redeem(code, on: service)
        #expect(reply.status == 200, "\(reply.text)")
        return reply.response?.credential?.keyIndex
    }

    /// Waits until the service's standard error has a line containing `text`; returns it.
    func logLine(_ service: ServiceProcess, containing text: String, within seconds: Double = 5) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            if let line = service.stderr.split(separator: "\n").last(where: { $0.contains(text) }) { return String(line) }
            usleep(20_000)
        } while Date() < deadline
        return nil
    }

    /// `badge_reload_failures_total` as the service exports it.
    func reloadFailures(_ service: ServiceProcess) throws -> Int {
        let metrics = try HTTP.request("GET", service.url + "/metrics").text
        let line = try #require(metrics.split(separator: "\n").first { $0.hasPrefix("badge_reload_failures_total ") })
        return try #require(Int(line.split(separator: " ")[1]))
    }

    @Test func activateNeedsAnExistingKeyThatCanSign() throws {
        let data = dir.file("data"), keyFile = data + "/issuer-keys.json"
        #expect(try CLIResult.run(["init", "--data", data], in: dir.url).status == 0)
        let missing = try CLIResult.run(["issuer", "activate", "--index", "3", "--data", data], in: dir.url)
        #expect(missing.status == 1, "\(missing.stderr)")
        #expect(missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
        #expect(missing.stderr.contains("issuer key file \(keyFile) has no key at index 3"), "\(missing.stderr)")
        #expect(try CLIResult.run(["issuer", "activate", "--data", data], in: dir.url).status == 2)

        // a key added without --activate can be activated later
        #expect(try CLIResult.run(["issuer", "add", "--index", "2", "--data", data], in: dir.url).status == 0)
        let activated = try CLIResult.run(["issuer", "activate", "--index", "2", "--data", data], in: dir.url)
        #expect(activated.status == 0, "\(activated.stderr)")
        #expect(activated.stdout.hasPrefix("{\"active\": 2, "), "\(activated.stdout)")
        #expect(try CLIResult.run(["issuer", "show", "--data", data], in: dir.url).stdout == activated.stdout)

        // a public-only index cannot sign
        let publicOnly = try keygen().publicKey
        var file = try String(contentsOfFile: keyFile, encoding: .utf8)
        file = file.replacingOccurrences(of: "\"keys\": {", with: "\"keys\": {\"5\": {\"publicKey\": \"\(publicOnly)\"}, ")
        try file.write(toFile: keyFile, atomically: true, encoding: .utf8)
        chmod(keyFile, 0o600)
        let cannotSign = try CLIResult.run(["issuer", "activate", "--index", "5", "--data", data], in: dir.url)
        #expect(cannotSign.status == 1 && cannotSign.stderr.contains("index 5 holds only a public key"), "\(cannotSign.stderr)")
    }

    @Test func aKeyActivatedWhileServingIsUsedAfterSIGHUPAndAFailedReloadKeepsIt() throws {
        let service = try ServiceProcess(data: dir)
        let keyFile = dir.file("badge-data/issuer-keys.json")
        #expect(try signingIndex(service) == 1)

        #expect(try service.cli(["issuer", "add", "--index", "2"]).status == 0)
        #expect(try service.cli(["issuer", "activate", "--index", "2"]).status == 0)
        kill(service.process.processIdentifier, SIGHUP)
        // the key file watcher may have seen the change first; either way SIGHUP reloads it too
        let line = logLine(service, containing: "reloaded (SIGHUP)")
        #expect(line?.contains("issuer key 2 active") == true && line?.contains("keys 1, 2;") == true, "\(service.stderr)")
        #expect(logLine(service, containing: "issuer key 2 active (was 1)") != nil, "\(service.stderr)")
        #expect(try signingIndex(service) == 2)

        // SIGHUP again and again: never exits
        for _ in 0..<3 { kill(service.process.processIdentifier, SIGHUP) }
        usleep(300_000)
        #expect(service.process.isRunning, "\(service.stderr)")

        // a bad key file: one error line, the service keeps signing with key 2
        let good = try String(contentsOfFile: keyFile, encoding: .utf8)
        try "{\"active\": 2, \"keys\": {".write(toFile: keyFile, atomically: false, encoding: .utf8)
        kill(service.process.processIdentifier, SIGHUP)
        let failed = logLine(service, containing: "reload (SIGHUP) failed, keeping issuer key 2")
        #expect(failed?.contains(keyFile) == true, "\(service.stderr)")
        #expect(try signingIndex(service) == 2)
        #expect(service.process.isRunning)
        // not ready, with the reason, and counted, until a reload succeeds: the key file in place
        // would stop the next start
        let notReady = try HTTP.request("GET", service.url + "/readyz")
        #expect(notReady.status == 503 && notReady.text.contains("failed, keeping issuer key 2"), "\(notReady.text)")
        // the key file watcher may have reloaded the change too: one failure or two
        let failures = try reloadFailures(service)
        #expect(failures >= 1)
        try "{\"active\": 2, \"keys\": {\"2\": {\"secretKey\": \"\(try keygen().secretKey)\"}}}".write(toFile: keyFile, atomically: true, encoding: .utf8)
        chmod(keyFile, 0o600)
        kill(service.process.processIdentifier, SIGHUP)
        #expect(logLine(service, containing: "reload (SIGHUP) failed, keeping issuer key 2: issuer key file \(keyFile) holds another key at index 2") != nil,
                "\(service.stderr)")
        #expect(try HTTP.request("GET", service.url + "/readyz").status == 503)
        let more = try reloadFailures(service)
        #expect(more > failures)
        let reloadsBefore = service.stderr.components(separatedBy: "reloaded (").count
        try good.write(toFile: keyFile, atomically: true, encoding: .utf8)
        chmod(keyFile, 0o600)
        kill(service.process.processIdentifier, SIGHUP)
        let deadline = Date().addingTimeInterval(5)
        while service.stderr.components(separatedBy: "reloaded (").count == reloadsBefore, Date() < deadline { usleep(20_000) }
        #expect(service.stderr.components(separatedBy: "reloaded (").count > reloadsBefore, "\(service.stderr)")
        #expect(try HTTP.request("GET", service.url + "/readyz").status == 200)
        #expect(try reloadFailures(service) == more, "a success is not a failure")

        #expect(service.stop() == 0, "\(service.stderr)")
        // every request's access line was written before the exit
        #expect(service.accessLog.split(separator: "\n").filter { $0.contains("redeemBadgeCode") }.count == 3, "\(service.accessLog)")
    }

    @Test func aKeyActivatedWhileServingIsPickedUpWithoutASignal() throws {
        let service = try ServiceProcess(data: dir)
        #expect(try signingIndex(service) == 1)
        #expect(try service.cli(["issuer", "add", "--index", "3", "--activate"]).status == 0)
        let line = logLine(service, containing: "reloaded (issuer key file changed)")
        #expect(line?.contains("issuer key 3 active (was 1)") == true, "\(service.stderr)")
        #expect(try signingIndex(service) == 3)
        #expect(service.stop() == 0)
    }

    @Test func aReloadNeverReplacesAKeyInUse() throws {
        let service = try ServiceProcess(data: dir)
        let keyFile = dir.file("badge-data/issuer-keys.json")
        // the same index, another secret: refused, index 1 keeps its key
        let other = try keygen().secretKey
        try "{\"active\": 1, \"keys\": {\"1\": {\"secretKey\": \"\(other)\"}}}".write(toFile: keyFile, atomically: true, encoding: .utf8)
        chmod(keyFile, 0o600)
        kill(service.process.processIdentifier, SIGHUP)
        let failed = logLine(service, containing: "reload (SIGHUP) failed, keeping issuer key 1")
        #expect(failed?.contains("holds another key at index 1") == true, "\(service.stderr)")
        #expect(service.stop() == 0)
    }

    /// A key changed under an index a stored credential was signed with is refused however it
    /// comes: in two reloads (the index dropped, then another key put there) or at a restart.
    @Test func aKeyUnderASignedIndexIsNeverReplacedInStepsOrAtARestart() throws {
        let service = try ServiceProcess(data: dir)
        let keyFile = dir.file("badge-data/issuer-keys.json")
        #expect(try signingIndex(service) == 1)
        let two = try keygen().secretKey, other = try keygen().secretKey
        try "{\"active\": 2, \"keys\": {\"2\": {\"secretKey\": \"\(two)\"}}}".write(toFile: keyFile, atomically: true, encoding: .utf8)
        chmod(keyFile, 0o600)
        kill(service.process.processIdentifier, SIGHUP)
        #expect(logLine(service, containing: "issuer key 2 active (was 1), keys 2;") != nil, "\(service.stderr)")
        let replaced = "{\"active\": 2, \"keys\": {\"1\": {\"secretKey\": \"\(other)\"}, \"2\": {\"secretKey\": \"\(two)\"}}}"
        try replaced.write(toFile: keyFile, atomically: true, encoding: .utf8)
        chmod(keyFile, 0o600)
        kill(service.process.processIdentifier, SIGHUP)
        let failed = logLine(service, containing: "reload (SIGHUP) failed, keeping issuer key 2")
        #expect(failed?.contains("issuer key file \(keyFile) holds key index 1 with public key ") == true
                && failed?.contains("for it: copy the key file from the instance that made it") == true, "\(service.stderr)")
        #expect(service.stop() == 0)

        let refused = try CLIResult.run(["init", "--data", dir.file("badge-data")], in: dir.url)
        #expect(refused.status == 1 && refused.stderr.split(separator: "\n").count == 1
                && refused.stderr.contains("holds key index 1 with public key "), "\(refused.stderr)")
        // serve refuses to start, for that reason (not any start failure).
        do {
            let started = try ServiceProcess(data: dir)
            Issue.record("serve started with another key at a signed index")
            _ = started.stop()
        } catch {
            #expect("\(error)".contains("holds key index 1 with public key "), "\(error)")
        }
    }

    @Test func SIGINTWritesTheBufferedAccessLog() throws {
        let service = try ServiceProcess(data: dir)
        for _ in 0..<5 { #expect(try HTTP.request("GET", service.url + "/healthz").status == 200) }
        #expect(service.stop(SIGINT) == 0)
        #expect(service.accessLog.split(separator: "\n").filter { $0.contains("/healthz") }.count == 5, "\(service.accessLog)")
    }
}
