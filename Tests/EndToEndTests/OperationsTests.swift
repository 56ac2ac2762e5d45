import BadgeCore
import Crypto
import Foundation
import Glibc
import Ledger
import Storage
import TestSupport
import Testing

/// Issue 7, "safe to operate": what an operator relies on, tried on the real binary.
@Suite(.timeLimit(.minutes(5))) struct OperationsTests {
    let dir = TemporaryDirectory("ops")

    /// Runs the binary for at most `seconds`: its exit status (nil if it was still running and
    /// had to be killed) and its standard error.
    /// A refused start exits at once; the 60 s bound only stops one that serves (a full parallel run on
    /// two shared cores once took past 15 s to see a refusal's exit).
    func runBriefly(_ arguments: [String], within seconds: Double = 60) throws -> (status: Int32?, stderr: String) {
        let errPath = dir.file("briefly-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ServiceProcess.executable)
        process.arguments = arguments
        process.currentDirectoryURL = dir.url
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("BADGE_SERVICE_") }
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        var status: Int32?
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        } else {
            status = process.terminationStatus
        }
        return (status, (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }

    @Test func aSecondServeOnTheSameAddressFailsAtBind() throws {
        let first = try ServiceProcess(data: dir)
        #expect(try CLIResult.run(["init", "--data", dir.file("other-data")], in: dir.url).status == 0)
        let second = try runBriefly(["serve", "--listen", "127.0.0.1:\(first.port)", "--data", dir.file("other-data")])
        #expect(second.status == 1, "a second serve on 127.0.0.1:\(first.port) kept running: \(second.stderr)")
        let lines = second.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(second.stderr)")
        #expect(lines.last?.contains("cannot listen on 127.0.0.1:\(first.port)") == true, "\(second.stderr)")
        #expect(lines.last?.contains("Address already in use") == true, "\(second.stderr)")
        // the first one still answers
        #expect(try HTTP.request("GET", first.url + "/healthz").status == 200)
        #expect(first.stop() == 0)
    }

    @Test func aSecondServeOnTheSameDataDirectoryRefusesNamingTheHolder() throws {
        let first = try ServiceProcess(data: dir)
        let data = dir.file("badge-data")
        let second = try runBriefly(["serve", "--listen", "127.0.0.1:0", "--data", data])
        #expect(second.status == 1, "a second serve on \(data) kept running: \(second.stderr)")
        let lines = second.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(second.stderr)")
        #expect(lines.last?.contains("data directory \(data) is in use") == true, "\(second.stderr)")
        #expect(lines.last?.contains("pid \(first.process.processIdentifier)") == true, "\(second.stderr)")

        // operator commands work beside the running server
        let created = try first.cli(["codes", "create", "--type", "supporter", "--months", "3"])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(try first.cli(["catalog", "list"]).status == 0)
        #expect(first.stop() == 0)

        // once it has stopped, the directory is free again (the lock file left behind is no obstacle)
        let again = try ServiceProcess(data: dir)
        #expect(again.stop() == 0)
    }

    /// A data directory made by a first `serve` (then stopped) holding one funded purchase.
    func dataWithAPurchase() throws -> (data: String, purchaseKey: String) {
        let service = try ServiceProcess(data: dir)
        #expect(service.stop() == 0)
        let data = dir.file("badge-data")
        let store = try SQLiteBadgeStore(path: data + "/badges.sqlite")
        let key = Ed25519PrivateKey().publicKey.purchaseKeyText
        let now = Timestamp(seconds: Int64(Date().timeIntervalSince1970))
        var ids = 0
        let plan = try planFirstFunding(months: 3, credit: .code, badgeType: .supporter, now: now,
                                        newId: { ids += 1; return "ops-\(ids)" })
        try store.write { w in
            let p = try w.insertPurchase(key: key, masterKey: SecureRandom.bytes(32), badgeType: .supporter, at: now)
            try w.appendLedger(purchaseId: p.id, expectedCount: 0, entries: plan.rows)
        }
        return (data, key)
    }

    @Test func optionsMayComeBeforeThePositionalArgument() throws {
        let (data, key) = try dataWithAPurchase()
        let shown = try CLIResult.run(["ledger", "show", "--data", data, key], in: dir.url)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.hasPrefix("purchase \(key)"), "\(shown.stdout)")
        let after = try CLIResult.run(["ledger", "show", key, "--data", data], in: dir.url)
        #expect(after.stdout == shown.stdout)

        let credited = try CLIResult.run(["ledger", "credit", "--data", data, key, "--months", "2", "--support"], in: dir.url)
        #expect(credited.status == 0, "\(credited.stderr)")
        #expect(credited.stdout.contains("\"changeMonths\":2"), "\(credited.stdout)")

        let code = try CLIResult.run(["codes", "create", "--type", "supporter", "--months", "1", "--data", data], in: dir.url)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let codeFile = dir.file("revoke.txt")
        try Data(code.utf8).write(to: URL(fileURLWithPath: codeFile))
        let revoked = try CLIResult.run(["codes", "revoke", "--data", data, "--code-file", codeFile], in: dir.url)
        #expect(revoked.status == 0, "\(revoked.stderr)")
        #expect(try CLIResult.run(["codes", "list", "--data", data], in: dir.url).stdout.contains("REVOKED"))
        // the subcommand itself may follow an option too
        #expect(try CLIResult.run(["codes", "--data", data, "list"], in: dir.url).stdout.contains("REVOKED"))
    }

    @Test func aMissingIssuerKeyIsNeverReplacedOnADatabaseWithPurchases() throws {
        let (data, _) = try dataWithAPurchase()
        let keyFile = data + "/issuer-keys.json"
        try FileManager.default.removeItem(atPath: keyFile)
        let refused = try runBriefly(["serve", "--listen", "127.0.0.1:0", "--data", data])
        #expect(refused.status == 1, "\(refused.stderr)")
        let lines = refused.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(refused.stderr)")
        #expect(lines.last?.contains("issuer key file \(keyFile) is missing") == true, "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: keyFile))
        #expect(try CLIResult.run(["init", "--data", data], in: dir.url).status == 1)
        #expect(!FileManager.default.fileExists(atPath: keyFile))
    }

    @Test(arguments: [["codes", "create", "--type", "supporter", "--months", "3"], ["codes", "list"], ["catalog", "list"],
                      ["ledger", "show", "MCowBQYDK2VwAyEAebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ="]])
    func operatorCommandsNeverCreateADataDirectory(_ command: [String]) throws {
        let typo = dir.file("badge-dta")
        let r = try CLIResult.run(command + ["--data", typo], in: dir.url)
        #expect(r.status == 1)
        #expect(r.stdout.isEmpty, "\(r.stdout)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(typo), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: typo))
        // an existing directory without a database is refused the same way, and stays empty
        try FileManager.default.createDirectory(atPath: typo, withIntermediateDirectories: false)
        let empty = try CLIResult.run(command + ["--data", typo], in: dir.url)
        #expect(empty.status == 1 && empty.stderr.contains(typo + "/badges.sqlite"), "\(empty.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: typo).isEmpty)
    }

    func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : 0o7777
    }

    @Test func databaseAndKeyFilesAreOwnerOnlyAndASharedKeyFileRefusesToStart() throws {
        let service = try ServiceProcess(data: dir)
        let data = dir.file("badge-data")
        for file in ["badges.sqlite", "badges.sqlite-wal", "badges.sqlite-shm", "issuer-keys.json"] {
            #expect(mode(data + "/" + file) == 0o600, "\(file): \(String(mode(data + "/" + file), radix: 8))")
        }
        #expect(service.stop() == 0)
        let keyFile = data + "/issuer-keys.json"
        chmod(keyFile, 0o644)
        let refused = try runBriefly(["serve", "--listen", "127.0.0.1:0", "--data", data])
        #expect(refused.status == 1, "\(refused.stderr)")
        let lines = refused.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(refused.stderr)")
        #expect(lines.last?.contains("issuer key file \(keyFile) has mode 0644: readable by others") == true, "\(refused.stderr)")
        chmod(keyFile, 0o600)
        let again = try ServiceProcess(data: dir)
        #expect(again.stop() == 0)
    }

    @Test func versionAndAnUnknownCommandNamesCommandsThatExist() throws {
        let version = try CLIResult.run(["--version"], in: dir.url)
        #expect(version.status == 0 && version.stderr.isEmpty)
        #expect(version.stdout.range(of: #"^badge-service \d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil, "\(version.stdout)")

        let unknown = try CLIResult.run(["frobnicate"], in: dir.url)
        #expect(unknown.status == 2)
        #expect(!unknown.stderr.contains("frobnicate --help"), "\(unknown.stderr)")
        // every command the hint names exists: its --help works
        let named = try #require(unknown.stderr.range(of: #"commands: [a-z, ]+"#, options: .regularExpression))
        let commands = unknown.stderr[named].dropFirst("commands: ".count).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(commands.contains("serve") && commands.contains("codes"), "\(commands)")
        for command in commands {
            #expect(try CLIResult.run([command, "--help"], in: dir.url).status == 0, "\(command)")
        }
    }

    @Test func aCleanStopLeavesNoWriteAheadLogAndABackupMadeWhileServingRestores() throws {
        let service = try ServiceProcess(data: dir)
        let data = dir.file("badge-data")
        let code = try service.cli(["codes", "create", "--type", "supporter", "--months", "3"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(FileManager.default.fileExists(atPath: data + "/badges.sqlite-wal"))

        // a backup while the service runs: a new directory, owner-only files
        let backup = dir.file("backup-1")
        let made = try CLIResult.run(["backup", "--data", data, backup], in: dir.url)
        #expect(made.status == 0, "\(made.stderr)")
        for file in ["badges.sqlite", "issuer-keys.json", "backup.json"] {
            #expect(mode(backup + "/" + file) == 0o600, "\(file)")
        }
        // it never replaces anything
        let again = try CLIResult.run(["backup", backup, "--data", data], in: dir.url)
        #expect(again.status == 1 && again.stderr.contains(backup), "\(again.stderr)")
        let codesBefore = try service.cli(["codes", "list"]).stdout
        let keysBefore = try service.cli(["issuer", "show"]).stdout

        // SIGTERM: the log is folded into the database, no -wal or -shm remains
        #expect(service.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: data + "/badges.sqlite-wal"))
        #expect(!FileManager.default.fileExists(atPath: data + "/badges.sqlite-shm"))

        // restore (README, Operations): the backup directory replaces the data directory
        try FileManager.default.moveItem(atPath: data, toPath: dir.file("badge-data.old"))
        try FileManager.default.moveItem(atPath: backup, toPath: data)
        let restored = try ServiceProcess(data: dir, arguments: ["--restored"])
        #expect(try restored.cli(["codes", "list"]).stdout == codesBefore)
        #expect(try restored.cli(["issuer", "show"]).stdout == keysBefore)
        #expect(codesBefore.split(separator: "\n").count == 1 && !code.isEmpty)
        #expect(restored.stop() == 0)
    }

    @Test func startUpNamesTheAbsoluteDataDirectory() throws {
        // a relative --data (the default is one too) is resolved against the working directory
        let started = try runBriefly(["serve", "--listen", "127.0.0.1:0", "--data", "relative-data"], within: 3)
        #expect(started.status == nil, "serve exited: \(started.stderr)")
        let absolute = dir.url.standardizedFileURL.path + "/relative-data"
        #expect(started.stderr.contains("created data directory \(absolute)"), "\(started.stderr)")
        #expect(started.stderr.contains("(data: \(absolute),"), "\(started.stderr)")
    }

    /// contrib/badge-service.service passes `systemd-analyze verify` without a warning (the
    /// Debian package systemd; scripts/install-deps installs it). The check needs ExecStart's
    /// program to exist, so it runs on a copy pointing at the built binary.
    @Test func theSystemdUnitVerifies() throws {
        let unit = try String(contentsOf: Repository.root.appendingPathComponent("contrib/badge-service.service"), encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/local/bin/badge-service serve "))
        #expect(unit.split(separator: "\n").contains("ExecReload=/bin/kill -HUP $MAINPID"))
        let copy = dir.file("badge-service.service")
        try unit.replacingOccurrences(of: "/usr/local/bin/badge-service", with: ServiceProcess.executable)
            .write(toFile: copy, atomically: true, encoding: .utf8)
        let verified = try CLIResult.run(["verify", "--man=no", copy], in: dir.url, executable: "/usr/bin/systemd-analyze")
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stderr.isEmpty && verified.stdout.isEmpty, "\(verified.stderr)\(verified.stdout)")

        // the check is not blind: a misspelled setting is reported
        try unit.replacingOccurrences(of: "/usr/local/bin/badge-service", with: ServiceProcess.executable)
            .replacingOccurrences(of: "Type=exec", with: "Type=exce").write(toFile: copy, atomically: true, encoding: .utf8)
        #expect(try CLIResult.run(["verify", "--man=no", copy], in: dir.url, executable: "/usr/bin/systemd-analyze").stderr.contains("exce"))
    }

    /// contrib/badge-service-backup.service and .timer pass `systemd-analyze verify`; the
    /// service's own commands, run as systemd runs them (its `$$` and `%%` unescaped, its paths
    /// moved here), make a date-named backup and then delete only the oldest date-named backups
    /// beyond KEEP_BACKUPS, nothing else in the directory.
    @Test func theBackupTimerVerifiesAndItsServiceKeepsTheNewestBackupsOnly() throws {
        let contrib = Repository.root.appendingPathComponent("contrib")
        let unit = try String(contentsOf: contrib.appendingPathComponent("badge-service-backup.service"), encoding: .utf8)
        let timer = try String(contentsOf: contrib.appendingPathComponent("badge-service-backup.timer"), encoding: .utf8)
        #expect(timer.split(separator: "\n").contains("Unit=badge-service-backup.service"))
        let unitCopy = dir.file("badge-service-backup.service"), timerCopy = dir.file("badge-service-backup.timer")
        try unit.write(toFile: unitCopy, atomically: true, encoding: .utf8)
        try timer.write(toFile: timerCopy, atomically: true, encoding: .utf8)
        let verified = try CLIResult.run(["verify", "--man=no", unitCopy, timerCopy], in: dir.url, executable: "/usr/bin/systemd-analyze")
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stderr.isEmpty && verified.stdout.isEmpty, "\(verified.stderr)\(verified.stdout)")
        // the check is not blind: a misspelled setting is reported
        try timer.replacingOccurrences(of: "OnCalendar=", with: "OnCalender=").write(toFile: timerCopy, atomically: true, encoding: .utf8)
        #expect(try CLIResult.run(["verify", "--man=no", unitCopy, timerCopy], in: dir.url,
                                  executable: "/usr/bin/systemd-analyze").stderr.contains("OnCalender"))

        func setting(_ name: String) throws -> String {
            let line = try #require(unit.split(separator: "\n").first { $0.hasPrefix(name + "=") })
            return String(line.dropFirst(name.count + 1)).replacingOccurrences(of: "$$", with: "$").replacingOccurrences(of: "%%", with: "%")
                .replacingOccurrences(of: "/usr/local/bin/badge-service", with: ServiceProcess.executable)
                .replacingOccurrences(of: "/etc/badge-service/badge-service.ini", with: dir.file("empty.ini"))
                .replacingOccurrences(of: "/var/lib/badge-service-backups", with: dir.file("backups"))
                .replacingOccurrences(of: "/var/lib/badge-service", with: dir.file("badge-data"))
        }
        let keep = try #require(Int(try setting("Environment").replacingOccurrences(of: "KEEP_BACKUPS=", with: "")))
        try "".write(toFile: dir.file("empty.ini"), atomically: true, encoding: .utf8)
        #expect(try CLIResult.run(["init", "--data", dir.file("badge-data")], in: dir.url).status == 0)
        let backups = dir.file("backups")
        try FileManager.default.createDirectory(atPath: backups, withIntermediateDirectories: false)
        // older backups of its own, and what is not its own: never touched
        let old = (1...12).map { String(format: "badge-2025%02d01T030000Z", $0) } + (1...3).map { String(format: "badge-202601%02dT030000Z", $0) }
        #expect(keep < old.count + 1, "the test needs more backups than are kept")
        for name in old { try FileManager.default.createDirectory(atPath: backups + "/" + name, withIntermediateDirectories: false) }
        let foreign = ["badge-20240101T030000Z.partial", "badge-2024", "mine", "badge-20240101T030000Z-copy"]
        for name in foreign { try FileManager.default.createDirectory(atPath: backups + "/" + name, withIntermediateDirectories: false) }
        try "not a directory".write(toFile: backups + "/badge-20230101T030000Z", atomically: true, encoding: .utf8)

        let environment = ["KEEP_BACKUPS": String(keep)]
        let made = try CLIResult.run(["-c", try setting("ExecStart")], in: dir.url, environment: environment, executable: "/bin/sh")
        #expect(made.status == 0, "\(made.stderr)")
        let ours = { try FileManager.default.contentsOfDirectory(atPath: backups).filter { name in
            var isDirectory: ObjCBool = false
            return name.range(of: #"^badge-\d{8}T\d{6}Z$"#, options: .regularExpression) != nil
                && FileManager.default.fileExists(atPath: backups + "/" + name, isDirectory: &isDirectory) && isDirectory.boolValue
        } }
        let before = try ours().sorted()
        #expect(before.count == old.count + 1, "\(before)")
        let newest = try #require(before.last)
        #expect(FileManager.default.fileExists(atPath: backups + "/" + newest + "/backup.json"))
        let pruned = try CLIResult.run(["-c", try setting("ExecStartPost")], in: dir.url, environment: environment, executable: "/bin/sh")
        #expect(pruned.status == 0, "\(pruned.stderr)")
        #expect(try ours().sorted() == Array(before.suffix(keep)))
        for name in foreign + ["badge-20230101T030000Z"] { #expect(FileManager.default.fileExists(atPath: backups + "/" + name), "\(name)") }
        // a KEEP_BACKUPS that keeps none is refused, deleting nothing
        for bad in ["0", "", "all"] {
            let refused = try CLIResult.run(["-c", try setting("ExecStartPost")], in: dir.url, environment: ["KEEP_BACKUPS": bad],
                                            executable: "/bin/sh")
            #expect(refused.status != 0, "\(bad)")
            #expect(try ours().count == keep, "\(bad)")
        }
    }

    @Test func badgeTypesAreKnownAndCatalogRulesHold() throws {
        let data = dir.file("data")
        #expect(try CLIResult.run(["init", "--data", data], in: dir.url).status == 0)
        func run(_ args: [String]) throws -> CLIResult { try CLIResult.run(args + ["--data", data], in: dir.url) }

        for command in [["codes", "create", "--type", "suporter", "--months", "3"],
                        ["catalog", "add-price", "--type", "bogus", "--month-price", "100", "--currency", "usd"]] {
            let refused = try run(command)
            #expect(refused.status == 1 && refused.stdout.isEmpty, "\(command): \(refused.stdout)")
            #expect(refused.stderr.contains("unknown badge type") && refused.stderr.contains("known: supporter, legend, investor"),
                    "\(command): \(refused.stderr)")
        }
        #expect(try run(["codes", "list"]).stdout.isEmpty)

        // one active price per type and currency: a second needs --replace
        let legend = "6a778279-753e-45db-8acc-0e382c1d054a"
        let second = try run(["catalog", "add-price", "--type", "legend", "--month-price", "6500", "--currency", "usd"])
        #expect(second.status == 1 && second.stderr.contains("--replace \(legend)"), "\(second.stderr)")
        let replaced = try run(["catalog", "add-price", "--type", "legend", "--month-price", "6500", "--currency", "usd", "--replace", legend])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        // another currency is another price
        #expect(try run(["catalog", "add-price", "--type", "legend", "--month-price", "6000", "--currency", "eur"]).status == 0)

        // a disabled entry is never deprecated (put back on sale)
        #expect(try run(["catalog", "disable", legend]).status == 0)
        let revived = try run(["catalog", "deprecate", legend])
        #expect(revived.status == 1 && revived.stderr.contains("\(legend) is disabled"), "\(revived.stderr)")
        #expect(try run(["catalog", "list"]).stdout.contains("\(legend)  legend  7000 usd/month  disabled"))
    }

    @Test func theClientTakesItsServerFromTheEnvironmentAndReportsProtocolErrorsOnStandardError() throws {
        let service = try ServiceProcess(data: dir)
        let code = try service.cli(["codes", "create", "--type", "supporter", "--months", "3"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let env = ["BADGE_SERVICE_SERVER": service.url]
        let codeFile = dir.file("code.txt")
        try Data((code + "\n").utf8).write(to: URL(fileURLWithPath: codeFile))
        // the code on the command line: refused before any key file is made, and not echoed
        let exposed = try CLIResult.run(["client", "--key-file", dir.file("a.json"), "redeem", code], in: dir.url, environment: env)
        #expect(exposed.status == 2 && exposed.stderr.contains("visible to other users") && !exposed.stderr.contains(code), "\(exposed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("a.json")))
        let first = try CLIResult.run(["client", "--key-file", dir.file("a.json"), "redeem", codeFile], in: dir.url, environment: env)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("\"credential\""), "\(first.stdout)")
        // from standard input
        let other = try CLIResult.run(["-c", "printf '%s' \"$0\" | \"$1\" client --key-file \"$2\" redeem -", code, ServiceProcess.executable,
                                       dir.file("b.json")], in: dir.url, environment: env, executable: "/bin/sh")
        #expect(other.status == 1)
        #expect(other.stdout.isEmpty, "\(other.stdout)")
        let lines = other.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("code_used"), "\(other.stderr)")
        #expect(service.stop() == 0)
    }
}
