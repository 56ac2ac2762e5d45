import BadgeCore
import Crypto
import Foundation
import Glibc
import JSON
import RequestAuth
import Schema
import TestSupport
import Testing

/// Issue 7 item 5 and issue 8's readers, on the real binary: `/readyz` proves the database
/// writable and says why not; a write lock held by another process is answered with a
/// retryable error within the busy timeout; readers are opened at start.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ReadinessTests {
    let dir = TemporaryDirectory("ready")

    /// As root, file modes bind nobody, so the service then runs as `nobody` (through setpriv,
    /// which execs it), from a copy of the binary any user may run.
    func unprivilegedLaunch() throws -> (launcher: [String], executable: String) {
        guard geteuid() == 0 else { return ([], ServiceProcess.executable) }
        let copy = dir.file("badge-service")
        if !FileManager.default.fileExists(atPath: copy) {
            try FileManager.default.copyItem(atPath: ServiceProcess.executable, toPath: copy)
            chmod(copy, 0o755)
        }
        return (["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"], copy)
    }

    /// Gives `path` (and what it holds) to nobody when the test runs as root.
    func giveToTheService(_ path: String) throws {
        guard geteuid() == 0 else { return }
        chown(path, 65534, 65534)
        for name in try FileManager.default.contentsOfDirectory(atPath: path) { chown(path + "/" + name, 65534, 65534) }
    }

    func redeem(_ code: String, on service: ServiceProcess, by key: Ed25519PrivateKey = Ed25519PrivateKey()) throws -> HTTPReply {
        let body = RPCRequest(purchaseKey: key.publicKey.purchaseKeyText,
                              command: .redeemBadgeCode(masterKey: SecureRandom.bytes(32), code: code)).json.serialized()
        let signed = try RequestSigner(key: key).sign(method: "POST", authority: "127.0.0.1:\(service.port)", path: "/rpc",
                                                      body: body, created: Timestamp(seconds: Int64(Date().timeIntervalSince1970)))
        var headers = ["Content-Type": "application/json"]
        for f in signed.fields { headers[f.name] = f.value }
        return try HTTP.request("POST", service.url + "/rpc", body: body, headers: headers)
    }

    @Test func aReadOnlyDataDirectoryIsNotReadyAndSaysWhy() throws {
        let first = try ServiceProcess(data: dir)
        #expect(try HTTP.request("GET", first.url + "/readyz").status == 200)
        // killed: the write-ahead log and its index stay beside the database, as after a crash
        first.stop(SIGKILL)
        let data = dir.file("badge-data"), database = data + "/badges.sqlite"
        try giveToTheService(data)
        for file in ["badges.sqlite", "badges.sqlite-wal", "badges.sqlite-shm"] { chmod(data + "/" + file, 0o400) }
        chmod(data, 0o500)
        defer { chmod(data, 0o700) }

        let (launcher, executable) = try unprivilegedLaunch()
        let service = try ServiceProcess(data: dir, executable: executable, launcher: launcher)
        let ready = try HTTP.request("GET", service.url + "/readyz")
        #expect(ready.status == 503, "\(ready.text)")
        #expect(ready.json?["status"]?.stringValue == "not ready", "\(ready.text)")
        let reason = ready.json?["reason"]?.stringValue ?? ""
        #expect(reason.contains("database \(database) is not writable") && reason.contains("readonly"), "\(reason)")
        #expect(!reason.contains("\n"))
        // said at start too, as a warning naming the file
        #expect(service.stderr.contains("not ready: database \(database) is not writable"), "\(service.stderr)")
        // the service answers what needs no write
        #expect(try HTTP.request("GET", service.url + "/healthz").status == 200)
        #expect(service.stop() == 0, "\(service.stderr)")
    }

    @Test func aDatabaseThatCannotBeOpenedRefusesToStartNamingTheFile() throws {
        // SQLite opens any file; what it holds shows at the first statement, which names no file
        let data = dir.file("badge-data"), database = data + "/badges.sqlite"
        #expect(try CLIResult.run(["init", "--data", data], in: dir.url).status == 0)
        for file in [database + "-wal", database + "-shm"] { try? FileManager.default.removeItem(atPath: file) }
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: database))
        for command in [["serve", "--listen", "127.0.0.1:0"], ["codes", "list"]] {
            let refused = try CLIResult.run(command + ["--data", data], in: dir.url)
            #expect(refused.status == 1, "\(command): \(refused.stderr)")
            let lines = refused.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(command): \(refused.stderr)")
            #expect(lines.first?.contains("cannot open database \(database): file is not a database") == true,
                    "\(command): \(refused.stderr)")
        }
    }

    @Test func readersAreOpenedAtStart() throws {
        // one writer and one reader per worker, before any request
        let service = try ServiceProcess(data: dir, environment: ["BADGE_SERVICE_SERVER_WORKERS": "3"])
        let database = URL(fileURLWithPath: dir.file("badge-data/badges.sqlite")).resolvingSymlinksInPath().path
        let fds = "/proc/\(service.process.processIdentifier)/fd"
        let open = try FileManager.default.contentsOfDirectory(atPath: fds).filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: fds + "/" + $0)) == database
        }
        #expect(open.count == 4, "\(open.count) connections on \(database)")
        #expect(service.stop() == 0)
    }

    @Test func aWriteLockHeldByAnotherProcessIsAnsweredRetryableWithinTheBusyTimeout() throws {
        let service = try ServiceProcess(data: dir)
        let database = dir.file("badge-data/badges.sqlite")
        let code = try service.cli(["codes", "create", "--type", "supporter", "--months", "3"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)

        // another process (Python's sqlite3) takes the write lock and keeps it until its stdin closes
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: PeerPython.interpreter)
        holder.arguments = [Repository.root.appendingPathComponent("Tests/Peers/sqlite_lock_holder.py").path, database]
        let input = Pipe(), output = Pipe()
        holder.standardInput = input
        holder.standardOutput = output
        try holder.run()
        var released = false
        func release() {
            guard !released else { return }
            released = true
            try? input.fileHandleForWriting.close()
            holder.waitUntilExit()
        }
        defer { release() }
        let said = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        try #require(said.hasPrefix("locked"), "the lock holder said: \(said)")

        let key = Ed25519PrivateKey()
        let started = Date()
        let busy = try redeem(code, on: service, by: key)
        let waited = Date().timeIntervalSince(started)
        #expect(busy.status == 429, "\(busy.status) \(busy.text)")
        #expect(busy.json?["code"]?.stringValue == "rate_limited", "\(busy.text)")
        #expect(busy.json?["retryAfter"]?.numberValue?.exactInt == 1, "\(busy.text)")
        #expect(busy.headers["retry-after"] == "1", "\(busy.headers)")
        // the default busy timeout is 1 s: well under the 5 s SQLite waited before
        #expect(waited < 3, "answered after \(waited) s")

        let ready = try HTTP.request("GET", service.url + "/readyz")
        #expect(ready.status == 503, "\(ready.text)")
        #expect(ready.json?["reason"]?.stringValue == "database \(database) is busy: another process holds its write lock",
                "\(ready.text)")

        // an operator command beside it fails the same way, in one line naming the database
        let command = try service.cli(["codes", "create", "--type", "supporter", "--months", "1"])
        #expect(command.status == 1 && command.stdout.isEmpty, "\(command.stdout)")
        #expect(command.stderr.split(separator: "\n").count == 1, "\(command.stderr)")
        #expect(command.stderr.contains("database \(database) is busy: another process held its write lock"), "\(command.stderr)")

        // once the lock is released, the same request lands
        release()
        let redeemed = try redeem(code, on: service, by: key)
        #expect(redeemed.status == 200, "\(redeemed.text)")
        #expect(try HTTP.request("GET", service.url + "/readyz").status == 200)
        #expect(service.stop() == 0)
        #expect(!service.accessLog.contains("\"internal\""), "\(service.accessLog)")
    }

    @Test func theBusyTimeoutIsConfigurable() throws {
        // Twice the default (1 s): the default fails the lower bound, which load cannot break (200 ms left the answer 0.7 s).
        let service = try ServiceProcess(data: dir, environment: ["BADGE_SERVICE_DATABASE_BUSY_TIMEOUT_MS": "2000"])
        let database = dir.file("badge-data/badges.sqlite")
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: PeerPython.interpreter)
        holder.arguments = [Repository.root.appendingPathComponent("Tests/Peers/sqlite_lock_holder.py").path, database]
        let input = Pipe(), output = Pipe()
        holder.standardInput = input
        holder.standardOutput = output
        try holder.run()
        defer {
            try? input.fileHandleForWriting.close()
            holder.waitUntilExit()
        }
        try #require(String(decoding: output.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("locked"))
        let started = Date()
        let ready = try HTTP.request("GET", service.url + "/readyz")
        let waited = Date().timeIntervalSince(started)
        #expect(ready.status == 503, "\(ready.text)")
        #expect(waited >= 2 && waited < 3.9, "answered after \(waited) s")
        #expect(service.stop() == 0)
    }
}
