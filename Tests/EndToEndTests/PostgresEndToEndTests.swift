import BadgeCore
import Crypto
import Dispatch
import Foundation
import Glibc
import JSON
import Ledger
import Locking
import Schema
import Storage
import TestSupport
import Testing

/// Issue 14 on the built binary: `serve` processes sharing one PostgreSQL database (each with its
/// own data directory, one issuer key file between them), the operations commands on it, and the
/// server going away and coming back under running gateways.
@Suite struct PostgresEndToEndTests {
    let dir = TemporaryDirectory("e2e-postgres")

    /// A configuration for `database`: the URL without the password, which is in a file beside it.
    /// With `sharedKeyFile` off, each instance keeps the key file in its own data directory, as
    /// separate hosts do.
    func configuration(_ cluster: PostgresCluster, _ database: PostgresSettings, sharedKeyFile: Bool = true,
                       databaseKeys: String = "") throws -> String {
        let password = dir.file("pg-password")
        try Data((cluster.password + "\n").utf8).write(to: URL(fileURLWithPath: password))
        chmod(password, 0o600)
        let file = dir.file("badge-service-\(UUID().uuidString).ini")
        try """
            [database]
            url = \(database.url)
            password_file = \(password)
            pool_size = 4
            connect_timeout = 2
            \(databaseKeys)
            \(sharedKeyFile ? "[issuer]\nkey_file = \(dir.file("issuer-keys.json"))" : "")
            """.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    func redeem(_ service: ServiceProcess, key: Ed25519PrivateKey, master: [UInt8], code: String) throws -> HTTPReply {
        try HTTP.rpc(service, HTTP.envelope(["type": "redeemBadgeCode", "masterKey": .string(Base64URL.encode(master)),
                                             "code": .string(code)], key: key), key: key)
    }

    func code(_ service: ServiceProcess, config: String, uses: Int = 1) throws -> String {
        let r = try service.cli(["codes", "create", "--type", "supporter", "--months", "3", "--uses", String(uses), "--config", config])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func twoGatewaysOverOneDatabaseCreditOnceAndGiveTheLastUseOnce() throws {
        let cluster = PostgresCluster.shared
        let database = try cluster.makeDatabase()
        let config = try configuration(cluster, database)
        let a = try ServiceProcess(data: TemporaryDirectory("e2e-pg-a"), arguments: ["--config", config])
        let b = try ServiceProcess(data: TemporaryDirectory("e2e-pg-b"), arguments: ["--config", config])
        for service in [a, b] { #expect(try HTTP.request("GET", service.url + "/readyz").status == 200) }

        // 20 identical redemptions, split across both gateways at once: one credit.
        let shared = try code(a, config: config)
        let key = Ed25519PrivateKey(), master = SecureRandom.bytes(32)
        let statuses = LockedValueBox<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 20) { i in
            let status = (try? redeem(i % 2 == 0 ? a : b, key: key, master: master, code: shared).status) ?? -1
            statuses.withLock { $0.append(status) }
        }
        #expect(statuses.withLock { $0 } == Array(repeating: 200, count: 20))
        let store = try PostgresBadgeStore(settings: database)
        let ledger = try store.read { r in try r.ledger(purchaseId: try #require(try r.purchase(key: key.publicKey.purchaseKeyText)).id) }
        #expect(ledger.filter { $0.entryType == .credit(.code) }.count == 1)
        #expect(checkLedger(ledger, purchaseBadgeType: .supporter) == nil)

        // Two keys race for the last use of a code, one on each gateway: one winner.
        let last = try code(b, config: config)
        let racers = [Ed25519PrivateKey(), Ed25519PrivateKey()]
        let answers = LockedValueBox<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            let reply = try? redeem(i == 0 ? a : b, key: racers[i], master: SecureRandom.bytes(32), code: last)
            answers.withLock { $0.append(reply.map { $0.status == 200 ? "won" : ($0.response?.errorCode?.rawValue ?? $0.text) } ?? "no answer") }
        }
        #expect(answers.withLock { $0 }.sorted() == ["code_used", "won"])

        // The operations commands on PostgreSQL.
        let migrate = try a.cli(["migrate", "--config", config])
        #expect(migrate.status == 0 && migrate.stdout == "database \(database.redacted) is already at schema version \(SQLiteDatabase.latestSchemaVersion); nothing to do\n",
                "\(migrate.stdout) \(migrate.stderr)")
        #expect(!migrate.stdout.contains(cluster.password))
        let backup = try a.cli(["backup", dir.file("backup"), "--config", config])
        #expect(backup.status == 1 && backup.stderr.contains("pg_dump"), "\(backup.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("backup")))
        for service in [a, b] {
            #expect(service.stop() == 0)
            #expect(!service.stderr.contains(cluster.password))
        }
    }

    /// Play's 300 subscription checks a minute are the deployment's (issue 35, item 4): two
    /// release binaries over one PostgreSQL database, 600 distinct subscription tokens presented
    /// across both (Play answering 404, provider_unavailable), and Play is asked at most 300 times
    /// a clock minute between them; the rest are rate_limited without asking Play. Counted per
    /// clock minute, so the bound is 300 for each minute the burst touched.
    @Test func twoGatewaysOverOneDatabaseShareOnePlayBudget() throws {
        let cluster = PostgresCluster.shared
        let database = try cluster.makeDatabase()
        let fake = FakeGoogle()
        try fake.serve { base in
            let keyFile = dir.file("play-service-account.json")
            try Data(PeerServiceAccount.shared.keyJSON.utf8).write(to: URL(fileURLWithPath: keyFile))
            chmod(keyFile, 0o600)
            let config = try configuration(cluster, database)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: config))
            handle.seekToEndOfFile()
            handle.write(Data("""

                [google]
                package_name = chat.simplex.app
                service_account = \(keyFile)
                api_url = \(base)
                token_url = \(base)/token
                timeout = 2
                """.utf8))
            try handle.close()
            let release = try AppStoreEndToEndTests.release
            let a = try ServiceProcess(data: TemporaryDirectory("e2e-pg-budget-a"), arguments: ["--config", config], executable: release)
            let b = try ServiceProcess(data: TemporaryDirectory("e2e-pg-budget-b"), arguments: ["--config", config], executable: release)
            defer { for service in [a, b] { _ = service.stop() } }
            let minute = { Int64(Date().timeIntervalSince1970) / 60 }
            let firstMinute = minute()
            let codes = LockedValueBox<[ErrorCode?]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { lane in
                for i in stride(from: lane, to: 600, by: 8) {
                    let reply = try? GooglePlayEndToEndTests.buy(i % 2 == 0 ? a : b, token: "s.shared-\(i)",
                                                                 product: GooglePlayEndToEndTests.subscriptionProduct)
                    codes.withLock { $0.append(reply?.response?.errorCode) }
                }
            }
            let minutes = Int(minute() - firstMinute + 1)
            let reads = fake.apiCalls.filter { $0.route.hasPrefix("purchases/subscriptionsv2/") }.count
            let answered = codes.withLock { $0 }
            #expect(answered.count == 600)
            #expect(answered.allSatisfy { $0 == .providerUnavailable || $0 == .rateLimited },
                    "\(answered.filter { $0 != .providerUnavailable && $0 != .rateLimited }.prefix(3))")
            #expect(answered.filter { $0 == .providerUnavailable }.count == reads)
            // Each instance counting alone would read all 600 within one minute.
            #expect(reads <= 300 * minutes, "\(reads) reads over \(minutes) clock minute(s)")
            if minutes == 1 { #expect(answered.filter { $0 == .rateLimited }.count == 300) }
        }
    }

    /// The first rollout over one database, each instance on its own empty data directory: the
    /// second never makes a key of its own, but refuses, naming the index, the recorded key and the
    /// fix; once given the first one's key file, both sign credentials one public key verifies.
    @Test func aSecondInstanceOnAnEmptyDataDirectoryNeverMakesAnotherIssuerKey() throws {
        let cluster = PostgresCluster.shared
        let config = try configuration(cluster, try cluster.makeDatabase(), sharedKeyFile: false)
        let a = try ServiceProcess(data: TemporaryDirectory("e2e-pg-first-a"), arguments: ["--config", config])
        let shown = try JSONValue.parse(Array(try a.cli(["issuer", "show", "--config", config]).stdout.utf8))
        let publicKey = try #require(shown["keys"]?["1"]?.stringValue)
        let bData = TemporaryDirectory("e2e-pg-first-b")
        let bKeyFile = bData.file("badge-data/issuer-keys.json")
        do {
            let b = try ServiceProcess(data: bData, arguments: ["--config", config])
            Issue.record("a second instance started without the first one's key: \(b.stderr)")
            _ = b.stop()
        } catch {
            #expect("\(error)".contains("issuer key file \(bKeyFile) is missing but database ") , "\(error)")
            #expect("\(error)".contains("records issuer key index 1 (public key \(publicKey.prefix(12))…): copy the key file from the instance that made it"),
                    "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: bKeyFile))
        let init_ = try CLIResult.run(["init", "--config", config, "--data", bData.file("badge-data")], in: bData.url)
        #expect(init_.status == 1 && init_.stderr.contains("records issuer key index 1"), "\(init_.stderr)")
        #expect(!FileManager.default.fileExists(atPath: bKeyFile))

        // The fix the line names: the first instance's key file, copied.
        try FileManager.default.copyItem(atPath: a.data.file("badge-data/issuer-keys.json"), toPath: bKeyFile)
        let b = try ServiceProcess(data: bData, arguments: ["--config", config])
        var credentials: [JSONValue] = []
        for service in [a, b] {
            let key = Ed25519PrivateKey()
            let reply = try redeem(service, key: key, master: SecureRandom.bytes(32), code: try code(service, config: config))
            credentials.append(try #require(reply.response?.credential, "\(reply.text)").json)
        }
        #expect(try BBSPeer.verify(publicKey: publicKey, credentials: credentials) == ["valid", "valid"])
        for service in [a, b] { #expect(service.stop() == 0) }
    }

    /// Instances whose first start races over one empty database: one makes the key the database
    /// records; every other refuses and writes no key file.
    @Test func initsRacingOverOneEmptyDatabaseLeaveOneIssuerKey() throws {
        let cluster = PostgresCluster.shared
        let database = try cluster.makeDatabase()
        let config = try configuration(cluster, database, sharedKeyFile: false)
        let dirs = (0..<4).map { TemporaryDirectory("e2e-pg-race-\($0)") }
        let results = LockedValueBox<[Int: CLIResult]>([:])
        DispatchQueue.concurrentPerform(iterations: dirs.count) { i in
            let result = try? CLIResult.run(["init", "--config", config, "--data", dirs[i].file("badge-data")], in: dirs[i].url)
            results.withLock { $0[i] = result }
        }
        let all = results.withLock { $0 }
        let made = all.filter { $0.value.status == 0 }.map(\.key)
        #expect(made.count == 1, "\(all.mapValues(\.stderr))")
        for (i, result) in all where result.status != 0 {
            // One line refuses; the log may say which schema steps this instance applied first.
            let refusal = result.stderr.split(separator: "\n").filter { !$0.hasPrefix("{") }
            #expect(result.status == 1 && refusal.count == 1 && result.stderr.contains("issuer key index 1 (public key "),
                    "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dirs[i].file("badge-data/issuer-keys.json")))
            #expect(try FileManager.default.contentsOfDirectory(atPath: dirs[i].file("badge-data")).allSatisfy { !$0.contains("issuer-keys") })
        }
        let winner = try #require(made.first)
        let shown = try JSONValue.parse(Array(try CLIResult.run(["issuer", "show", "--config", config, "--data", dirs[winner].file("badge-data")],
                                                                in: dirs[winner].url).stdout.utf8))
        let recorded = try PostgresBadgeStore(settings: database).recordedIssuerKeys()
        #expect(recorded.count == 1 && recorded[1].map { Base64URL.encode($0) } == shown["keys"]?["1"]?.stringValue)
    }

    /// Issue 33 on PostgreSQL: `migrate --status` and `--dry-run` on a database the release before
    /// left, `migrate` one logged step at a time; then a newer release's additive step lands under
    /// running instances of this binary ("the release before" now): they keep serving, and one
    /// more starts beside them; a step that is not additive is refused at start.
    @Test func anOlderDatabaseMigratesVisiblyAndInstancesKeepServingANewerAdditiveSchema() throws {
        let cluster = PostgresCluster.shared
        let database = try cluster.makeDatabase()
        try PostgresDatabase.createForTesting(settings: database, atVersion: 12)
        let config = try configuration(cluster, database)
        let data = dir.file("badge-data"), latest = SQLiteDatabase.latestSchemaVersion
        func migrate(_ options: [String]) throws -> CLIResult {
            try CLIResult.run(["migrate"] + options + ["--config", config, "--data", data], in: dir.url)
        }
        let status = try migrate(["--status"])
        #expect(status.status == 0 && status.stdout.hasPrefix("database \(database.redacted) is at schema version 12\n"), "\(status.stdout)")
        #expect(status.stdout.contains("pending: step 13 (additive): "), "\(status.stdout)")
        let dry = try migrate(["--dry-run"])
        #expect(dry.status == 0 && dry.stdout.hasPrefix("would migrate database \(database.redacted) from schema version 12 to \(latest) "),
                "\(dry.stdout)")
        #expect(dry.stdout.contains("no backup is made on PostgreSQL: take one with pg_dump first"), "\(dry.stdout)")
        #expect(try PostgresDatabase.storedSchemaVersion(settings: database) == 12)
        let migrated = try migrate([])
        #expect(migrated.status == 0 && migrated.stdout.hasPrefix("migrated database \(database.redacted) from 12 to \(latest) (steps 13"),
                "\(migrated.stdout) \(migrated.stderr)")
        #expect(migrated.stderr.contains("migrated database \(database.redacted) from schema version 12 to 13 ("), "\(migrated.stderr)")
        #expect(!migrated.stdout.contains(cluster.password) && !migrated.stderr.contains(cluster.password))
        #expect(!FileManager.default.fileExists(atPath: data + "/backups"))

        let a = try ServiceProcess(data: TemporaryDirectory("e2e-pg-roll-a"), arguments: ["--config", config])
        try PostgresBadgeStore(settings: database).database.executeForTesting(NewerReleaseStep.additive(version: latest + 1))
        let key = Ed25519PrivateKey()
        #expect(try redeem(a, key: key, master: SecureRandom.bytes(32), code: try code(a, config: config)).status == 200)
        let b = try ServiceProcess(data: TemporaryDirectory("e2e-pg-roll-b"), arguments: ["--config", config])
        #expect(b.stderr.contains("database \(database.redacted) is at schema version \(latest + 1), this binary knows \(latest); "
                                  + "serving it, since its newer steps (\(latest + 1)) are additive"), "\(b.stderr)")
        #expect(try redeem(b, key: Ed25519PrivateKey(), master: SecureRandom.bytes(32), code: try code(b, config: config)).status == 200)

        try PostgresBadgeStore(settings: database).database.executeForTesting(NewerReleaseStep.contracting(version: latest + 2))
        #expect {
            _ = try ServiceProcess(data: TemporaryDirectory("e2e-pg-roll-c"), arguments: ["--config", config])
        } throws: { error in
            "\(error)".contains("database \(database.redacted) is at schema version \(latest + 2), newer than this service supports (\(latest))")
        }
        for service in [a, b] {
            #expect(try HTTP.request("GET", service.url + "/healthz").status == 200)
            #expect(service.stop() == 0)
        }
    }

    /// An empty PostgreSQL database beside an existing key file is a database lost, as a
    /// missing SQLite file is: refused until `init --new-database`; an older schema is
    /// refused by the commands that do not migrate, naming the server.
    @Test func anEmptyDatabaseBesideTheKeyFileIsRefusedUntilInitNewDatabase() throws {
        let cluster = PostgresCluster.shared
        let first = try configuration(cluster, try cluster.makeDatabase())
        let data = dir.file("badge-data")
        #expect(try CLIResult.run(["init", "--config", first, "--data", data], in: dir.url).status == 0)
        let empty = try cluster.makeDatabase()
        let config = try configuration(cluster, empty)
        // serve prepares as init does; a serve not refused would run on and hang the test.
        for command in [["init"], ["migrate"]] {
            let refused = try CLIResult.run(command + ["--config", config, "--data", data], in: dir.url)
            #expect(refused.status == 1, "\(command): \(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1
                    && refused.stderr.contains("database \(empty.redacted) is empty (schema version 0) but issuer key file \(dir.file("issuer-keys.json")) exists"),
                    "\(command): \(refused.stderr)")
            #expect(try PostgresDatabase.storedSchemaVersion(settings: empty) == 0)
        }
        let list = try CLIResult.run(["codes", "list", "--config", config, "--data", data], in: dir.url)
        #expect(list.status == 1 && list.stderr.contains("run badge-service migrate"), "\(list.stderr)")
        // One line naming the server once.
        #expect(list.stderr.split(separator: "\n").count == 1 && list.stderr.components(separatedBy: empty.redacted).count == 2,
                "\(list.stderr)")
        let made = try CLIResult.run(["init", "--new-database", "--config", config, "--data", data], in: dir.url)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try PostgresDatabase.storedSchemaVersion(settings: empty) == SQLiteDatabase.latestSchemaVersion)
    }

    /// With `[database] url` set, an SQLite database holding the service's tables in the data
    /// directory is refused, naming both: its purchases would be silently left behind.
    @Test func anSQLiteDatabaseWithTablesBesidePostgresIsRefused() throws {
        let data = dir.file("badge-data"), sqlite = data + "/badges.sqlite"
        #expect(try CLIResult.run(["init", "--data", data], in: dir.url).status == 0)
        let database = try PostgresCluster.shared.makeDatabase()
        let config = try configuration(PostgresCluster.shared, database)
        for command in [["init"], ["codes", "list"]] {
            let refused = try CLIResult.run(command + ["--config", config, "--data", data], in: dir.url)
            #expect(refused.status == 1 && refused.stderr.split(separator: "\n").count == 1
                    && refused.stderr.contains("[database] url is set (\(database.redacted)) but SQLite database \(sqlite) holds the service's tables"),
                    "\(command): \(refused.stderr)")
        }
        #expect(try PostgresDatabase.storedSchemaVersion(settings: database) == 0)
        // an empty file there is no data left behind
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: sqlite + suffix) }
        #expect(FileManager.default.createFile(atPath: sqlite, contents: nil))
        let started = try CLIResult.run(["init", "--config", config, "--data", data], in: dir.url)
        #expect(started.status == 0, "\(started.stderr)")
    }

    /// kill -9 of one gateway during a burst of redemptions across both: every purchase is
    /// credited once and its ledger re-derives as the client's replica checks it.
    @Test func killingAGatewayMidBurstLosesAndDoublesNothing() throws {
        let cluster = PostgresCluster.shared
        let database = try cluster.makeDatabase()
        let config = try configuration(cluster, database)
        let a = try ServiceProcess(data: TemporaryDirectory("e2e-pg-a"), arguments: ["--config", config])
        let b = try ServiceProcess(data: TemporaryDirectory("e2e-pg-b"), arguments: ["--config", config])
        let buyers = try (0..<12).map { _ in (key: Ed25519PrivateKey(), master: SecureRandom.bytes(32), code: try code(a, config: config)) }
        let killer = Thread {
            usleep(150_000)
            a.stop(SIGKILL, within: 5)
        }
        killer.start()
        DispatchQueue.concurrentPerform(iterations: buyers.count * 3) { i in
            let buyer = buyers[i % buyers.count]
            _ = try? redeem(i % 2 == 0 ? a : b, key: buyer.key, master: buyer.master, code: buyer.code)
        }
        // Whatever the killed gateway answered or not, the survivor completes every purchase.
        for buyer in buyers {
            #expect(try redeem(b, key: buyer.key, master: buyer.master, code: buyer.code).status == 200)
        }
        let store = try PostgresBadgeStore(settings: database)
        for buyer in buyers {
            let ledger = try store.read { r in try r.ledger(purchaseId: try #require(try r.purchase(key: buyer.key.publicKey.purchaseKeyText)).id) }
            #expect(ledger.filter { $0.entryType == .credit(.code) }.count == 1)
            #expect(checkLedger(ledger, purchaseBadgeType: .supporter) == nil)
        }
        #expect(b.stop() == 0)
    }

    /// The server stops under a running gateway: requests are answered provider_unavailable
    /// (503, retryable) and /readyz is 503; once it is back the same gateway serves again.
    @Test func aRestartedServerIsRetryableThenRecoveredWithoutRestartingTheGateway() throws {
        let cluster = try PostgresCluster.dedicated()
        let database = try cluster.makeDatabase()
        let config = try configuration(cluster, database)
        let a = try ServiceProcess(data: TemporaryDirectory("e2e-pg-a"), arguments: ["--config", config])
        let first = try code(a, config: config), second = try code(a, config: config)
        #expect(try redeem(a, key: Ed25519PrivateKey(), master: SecureRandom.bytes(32), code: first).status == 200)
        try cluster.stop()
        let down = try redeem(a, key: Ed25519PrivateKey(), master: SecureRandom.bytes(32), code: second)
        #expect(down.status == 503 && down.response?.errorCode == .providerUnavailable, "\(down.text)")
        #expect(down.headers["retry-after"] != nil)
        let ready = try HTTP.request("GET", a.url + "/readyz")
        #expect(ready.status == 503 && ready.text.contains("127.0.0.1:\(cluster.port)"), "\(ready.text)")
        try cluster.start()
        #expect(try redeem(a, key: Ed25519PrivateKey(), master: SecureRandom.bytes(32), code: second).status == 200)
        #expect(try HTTP.request("GET", a.url + "/readyz").status == 200)
        #expect(a.stop() == 0)
        #expect(!a.stderr.contains(cluster.password))
    }

    /// The server freezes under a running gateway (SIGSTOP: nothing answers, nothing is refused):
    /// a request and /readyz are answered 503 once the client-side deadlines pass, rather than
    /// when the server resumes, and the same gateway serves again once it does.
    @Test func aFrozenServerIsAnswered503AtTheDeadlinesThenRecovered() throws {
        let cluster = try PostgresCluster.dedicated()
        let database = try cluster.makeDatabase()
        let config = try configuration(cluster, database, databaseKeys: "statement_timeout_ms = 1000")
        let a = try ServiceProcess(data: TemporaryDirectory("e2e-pg-frozen"), arguments: ["--config", config])
        let first = try code(a, config: config), second = try code(a, config: config)
        #expect(try redeem(a, key: Ed25519PrivateKey(), master: SecureRandom.bytes(32), code: first).status == 200)
        try cluster.freeze()
        var thawed = false
        defer { if !thawed { try? cluster.thaw() } }
        // The test client gives up after 30 s: a gateway that waits for the server fails here.
        let down = try redeem(a, key: Ed25519PrivateKey(), master: SecureRandom.bytes(32), code: second)
        #expect(down.status == 503 && down.response?.errorCode == .providerUnavailable, "\(down.text)")
        let ready = try HTTP.request("GET", a.url + "/readyz")
        #expect(ready.status == 503 && ready.text.contains("127.0.0.1:\(cluster.port)"), "\(ready.text)")
        try cluster.thaw()
        thawed = true
        #expect(waitUntil(timeout: .seconds(30)) { (try? HTTP.request("GET", a.url + "/readyz").status) == 200 })
        #expect(try redeem(a, key: Ed25519PrivateKey(), master: SecureRandom.bytes(32), code: second).status == 200)
        #expect(a.stop() == 0)
    }
}
