import Foundation
import Glibc
import JSON
import Storage
import TestSupport
import Testing

/// Issue 33, upgrades you can see and undo, on the built binary and a data directory the release
/// before made (`Tests/Fixtures/upgrade/0.1.0`, copied for each test): `migrate --status` and
/// `--dry-run`, the backup a migrating start writes first, its restore, and newer schemas.
extension OperationsTests {
    var latest: Int { SQLiteDatabase.latestSchemaVersion }

    /// The release's data directory copied to `badge-data` (what ServiceProcess serves), and the
    /// release's database copied aside to compare with (the fixture itself is never opened).
    func releaseDataDirectory() throws -> (data: String, database: String, release: String) {
        let data = dir.file("badge-data"), release = dir.file("release.sqlite")
        try ReleaseFixture.copyDataDirectory(to: data)
        try FileManager.default.copyItem(atPath: try ReleaseFixture.file("badges.sqlite"), toPath: release)
        return (data, data + "/badges.sqlite", release)
    }

    func sortedEntries(_ path: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

    @Test func migrateStatusAndDryRunOnADatabaseOfTheReleaseBeforeSayWhatWouldRunAndChangeNothing() throws {
        let (data, database, _) = try releaseDataDirectory()
        let original = try Data(contentsOf: URL(fileURLWithPath: database))
        let version = try CLIResult.run(["--version"], in: dir.url).stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let status = try CLIResult.run(["migrate", "--status", "--data", data], in: dir.url)
        #expect(status.status == 0 && status.stderr.isEmpty, "\(status.stderr)")
        let lines = status.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "database \(database) is at schema version 12", "\(status.stdout)")
        #expect(lines.dropFirst().first == "this binary (\(version)) is at schema version \(latest)", "\(status.stdout)")
        #expect(lines.dropFirst(2).first == "pending: step 13 (additive): schema_migrations records whether each step is additive")
        #expect(lines.count == 2 + latest - 12, "\(status.stdout)")

        let dry = try CLIResult.run(["migrate", "--dry-run", "--data", data], in: dir.url)
        #expect(dry.status == 0 && dry.stderr.isEmpty, "\(dry.stderr)")
        let plan = dry.stdout.split(separator: "\n").map(String.init)
        #expect(plan.first == "would migrate database \(database) from schema version 12 to \(latest) (steps 13\(latest > 13 ? "–\(latest)" : ""))",
                "\(dry.stdout)")
        #expect(plan.contains("  step 13 (additive): schema_migrations records whether each step is additive"), "\(dry.stdout)")
        #expect(plan.last?.hasPrefix("would first back up the database and issuer key file to \(data)/backups/pre-migrate-12-\(latest)-") == true,
                "\(dry.stdout)")

        // Neither changed anything: the same bytes, no backup, no -wal.
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == original)
        #expect(sortedEntries(data) == ["badges.sqlite", "issuer-keys.json"])
        let both = try CLIResult.run(["migrate", "--status", "--dry-run", "--data", data], in: dir.url)
        #expect(both.status == 2 && both.stderr.contains("--status and --dry-run exclude each other"), "\(both.stderr)")
    }

    /// A start on the release's data directory backs it up first (logging the path), migrates
    /// one logged step at a time and serves the release's purchase; the backup, put back in place
    /// of the data directory, is what the release made — its binary serves it — and this binary
    /// upgrades it again.
    @Test func aStartThatMigratesBacksUpFirstServesAndItsBackupRollsBack() throws {
        let (data, database, release) = try releaseDataDirectory()
        let client = dir.file("badge-client.json")
        try ReleaseFixture.copyClientKeyFile(to: client)
        let releaseKey = try Data(contentsOf: URL(fileURLWithPath: try ReleaseFixture.file("issuer-keys.json")))
        let releaseRows = try SQLiteDatabase.contentsForTesting(path: release)
        let clientFile = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: client))))
        let lastEntryId = try #require(clientFile["lastEntry"]?["entryId"]?.stringValue)

        let service = try ServiceProcess(data: dir)
        let log = service.stderr.split(separator: "\n").map(String.init)
        let backedUp = log.firstIndex { $0.contains("backed up database \(database) before migrating it from schema version 12 to \(latest): "
                                                    + "\(data)/backups/pre-migrate-12-\(latest)-") }
        let stepped = log.firstIndex { $0.contains("migrated database \(database) from schema version 12 to 13 (") && $0.contains(" ms)") }
        let listening = log.firstIndex { $0.contains("listening on") }
        #expect(backedUp != nil && stepped != nil && listening != nil, "\(service.stderr)")
        if let backedUp, let stepped, let listening { #expect(backedUp < stepped && stepped < listening, "\(service.stderr)") }
        #expect(log.filter { $0.contains("migrated database \(database) from schema version") }.count == latest - 12, "\(service.stderr)")

        let names = sortedEntries(data + "/backups")
        #expect(names.count == 1 && names.first?.range(of: #"^pre-migrate-12-\#(latest)-\d{8}T\d{6}Z$"#, options: .regularExpression) != nil,
                "\(names)")
        let backup = data + "/backups/" + (names.first ?? "")
        #expect(mode(data + "/backups") == 0o700 && mode(backup) == 0o700)
        #expect(sortedEntries(backup) == ["backup.json", "badges.sqlite", "issuer-keys.json"])
        for file in sortedEntries(backup) { #expect(mode(backup + "/" + file) == 0o600, "\(file)") }
        #expect(try SQLiteDatabase.storedSchemaVersion(path: backup + "/badges.sqlite") == 12)
        #expect(try SQLiteDatabase.storedSchemaVersion(path: database) == latest)

        // It serves the release's purchase: the signed catalog carries its statement.
        func statementIds(_ server: ServiceProcess) throws -> [String] {
            let asked = try CLIResult.run(["client", "--server", server.url, "--key-file", client, "catalog", "--signed"], in: dir.url)
            #expect(asked.status == 0, "\(asked.stderr)")
            let reply = try JSONValue.parse(Array(asked.stdout.utf8))
            return reply["badgeStatement"]?["entries"]?.arrayValue?.compactMap { $0["entryId"]?.stringValue } ?? []
        }
        let served = try statementIds(service)
        #expect(served.count >= 2 && served.contains(lastEntryId), "\(served)")
        #expect(service.stop() == 0)

        // Roll back (README, Upgrading): stop, put the pre-migrate backup in place of the data directory.
        let upgraded = dir.file("badge-data.upgraded")
        try FileManager.default.moveItem(atPath: data, toPath: upgraded)
        try FileManager.default.moveItem(atPath: upgraded + "/backups/" + (names.first ?? ""), toPath: data)
        // What is in place is what the release before made and served (this test builds nothing
        // old): the same schema version, tables and rows, and the same key file.
        #expect(try SQLiteDatabase.storedSchemaVersion(path: database) == 12)
        #expect(try SQLiteDatabase.contentsForTesting(path: database) == releaseRows)
        #expect(try Data(contentsOf: URL(fileURLWithPath: data + "/issuer-keys.json")) == releaseKey)

        // Put in place, the backup is a restore: this binary asks for --restored first (the
        // release before ignores backup.json), then upgrades it again, backing it up first, and
        // serves the same purchase.
        do {
            let refused = try ServiceProcess(data: dir)
            Issue.record("a rolled-back data directory served without --restored: \(refused.stderr)")
            _ = refused.stop()
        } catch {
            #expect("\(error)".contains("is a restore of the backup made at "), "\(error)")
        }
        #expect(try SQLiteDatabase.storedSchemaVersion(path: database) == 12, "nothing migrated before --restored")
        let again = try ServiceProcess(data: dir, arguments: ["--restored"])
        #expect(again.stderr.contains("backed up database \(database) before migrating it from schema version 12"), "\(again.stderr)")
        #expect(try statementIds(again).prefix(2) == served.prefix(2))
        #expect(again.stop() == 0)
        #expect(sortedEntries(data + "/backups").count == 1)
    }

    /// `migrate` backs up first too, says what it did, and keeps the last three pre-migrate
    /// backups: older `pre-migrate-*` directories go, nothing else in `backups/` is touched.
    @Test func migrateKeepsTheLastThreePreMigrateBackupsAndNothingElseGoes() throws {
        let (data, database, _) = try releaseDataDirectory()
        let backups = data + "/backups"
        try FileManager.default.createDirectory(atPath: backups, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let older = ["pre-migrate-9-10-20250101T000000Z", "pre-migrate-10-11-20250601T000000Z", "pre-migrate-11-12-20260101T000000Z"]
        let others = ["manual-2026-11-30", "pre-migrate-notes", "pre-migrate-11-12-20240101T000000Z.partial"]
        for name in older + others {
            try FileManager.default.createDirectory(atPath: backups + "/" + name, withIntermediateDirectories: false)
            #expect(FileManager.default.createFile(atPath: backups + "/" + name + "/badges.sqlite", contents: Data("x".utf8)))
        }
        let file = "pre-migrate-8-9-20200101T000000Z"  // a file of that name is not a backup
        #expect(FileManager.default.createFile(atPath: backups + "/" + file, contents: Data("x".utf8)))

        let migrated = try CLIResult.run(["migrate", "--data", data], in: dir.url)
        #expect(migrated.status == 0, "\(migrated.stderr)")
        #expect(migrated.stdout == "migrated database \(database) from 12 to \(latest) (steps 13\(latest > 13 ? "–\(latest)" : ""))\n")
        #expect(migrated.stderr.contains("migrated database \(database) from schema version 12 to 13 ("), "\(migrated.stderr)")
        #expect(migrated.stderr.contains("deleted pre-migrate backup \(backups)/\(older[0]): the last 3 are kept"), "\(migrated.stderr)")
        let made = sortedEntries(backups).filter { $0.hasPrefix("pre-migrate-12-\(latest)-") }
        #expect(made.count == 1)
        #expect(sortedEntries(backups) == (made + Array(older.dropFirst()) + others + [file]).sorted())

        let again = try CLIResult.run(["migrate", "--data", data], in: dir.url)
        #expect(again.status == 0 && again.stderr.isEmpty, "\(again.stderr)")
        #expect(again.stdout == "database \(database) is already at schema version \(latest); nothing to do\n")
        #expect(sortedEntries(backups).count == 7)
    }

    /// A pre-migrate backup that cannot be written stops the start in one line naming the path,
    /// the database left at its version; `[database] backup_before_migrate = off` starts without one.
    @Test func aBackupThatCannotBeWrittenStopsTheStartUnlessSwitchedOff() throws {
        let (data, database, _) = try releaseDataDirectory()
        #expect(FileManager.default.createFile(atPath: data + "/backups", contents: Data()))  // a file where the directory goes
        for command in [["serve", "--listen", "127.0.0.1:0"], ["init"], ["migrate"]] {
            let refused = try runBriefly(command + ["--data", data])
            #expect(refused.status == 1, "\(command): \(refused.stderr)")
            let lines = refused.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(command): \(refused.stderr)")
            #expect(lines.first?.contains("not migrating database \(database) from schema version 12 to \(latest): the backup before it failed") == true
                    && lines.first?.contains("\(data)/backups/pre-migrate-12-\(latest)-") == true
                    && lines.first?.contains("backup_before_migrate = off") == true, "\(command): \(refused.stderr)")
            #expect(try SQLiteDatabase.storedSchemaVersion(path: database) == 12, "\(command)")
        }

        let config = dir.file("no-backup.ini")
        try "[database]\nbackup_before_migrate = off\n".write(toFile: config, atomically: true, encoding: .utf8)
        let shown = try CLIResult.run(["config", "check", "--config", config, "--data", data], in: dir.url)
        #expect(shown.stdout.contains("[database] backup_before_migrate = off"), "\(shown.stdout)")
        let service = try ServiceProcess(data: dir, arguments: ["--config", config])
        #expect(service.stderr.contains("migrating database \(database) from schema version 12 to \(latest) without a backup: "
                                        + "[database] backup_before_migrate is off"), "\(service.stderr)")
        #expect(service.stderr.contains("migrated database \(database) from schema version 12 to 13 ("), "\(service.stderr)")
        #expect(service.stop() == 0)
        #expect(try SQLiteDatabase.storedSchemaVersion(path: database) == latest)
    }

    /// A database a newer release expanded is served, with a warning naming both versions; one
    /// it contracted is refused in one line. `migrate --status` says which.
    @Test func aNewerSchemaIsServedWhileItsNewerStepsAreAdditive() throws {
        let data = dir.file("badge-data"), database = data + "/badges.sqlite"
        #expect(try CLIResult.run(["init", "--data", data], in: dir.url).status == 0)
        try SQLiteBadgeStore(path: database).database.executeForTesting(NewerReleaseStep.additive(version: latest + 1))

        let status = try CLIResult.run(["migrate", "--status", "--data", data], in: dir.url)
        #expect(status.stdout.contains("newer: step \(latest + 1) (additive)\nthis binary serves it: every newer step is additive\n"),
                "\(status.stdout)")
        let service = try ServiceProcess(data: dir)
        #expect(service.stderr.contains("database \(database) is at schema version \(latest + 1), this binary knows \(latest); "
                                        + "serving it, since its newer steps (\(latest + 1)) are additive"), "\(service.stderr)")
        #expect(try service.cli(["codes", "create", "--type", "supporter", "--months", "1"]).status == 0)
        #expect(service.stop() == 0)
        let migrated = try CLIResult.run(["migrate", "--data", data], in: dir.url)
        #expect(migrated.status == 0 && migrated.stdout.contains("newer than this binary's \(latest)") && migrated.stdout.contains("nothing to do"),
                "\(migrated.stdout) \(migrated.stderr)")
        #expect(!FileManager.default.fileExists(atPath: data + "/backups"))

        try SQLiteBadgeStore(path: database).database.executeForTesting(NewerReleaseStep.contracting(version: latest + 2))
        let refused = try runBriefly(["serve", "--listen", "127.0.0.1:0", "--data", data])
        #expect(refused.status == 1 && refused.stderr.split(separator: "\n").count == 1
                && refused.stderr.contains("database \(database) is at schema version \(latest + 2), newer than this service supports (\(latest))"),
                "\(refused.stderr)")
        let refusing = try CLIResult.run(["migrate", "--status", "--data", data], in: dir.url)
        #expect(refusing.status == 0 && refusing.stdout.contains("this binary refuses it: step \(latest + 2) is not additive; upgrade the service"),
                "\(refusing.stdout)")
    }

    /// The release an operator installs is the one CHANGELOG.md describes first, and the README
    /// says how to upgrade and roll back.
    @Test func theChangelogsNewestEntryIsThisVersion() throws {
        let version = try #require(try CLIResult.run(["--version"], in: dir.url).stdout.split(separator: " ").last)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let changelog = try String(contentsOf: Repository.root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let newest = changelog.split(separator: "\n").first { $0.hasPrefix("## ") }
        #expect(newest?.hasPrefix("## \(version) ") == true || newest == "## \(version)", "\(newest ?? "no entry")")
        let readme = try String(contentsOf: Repository.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("\n## Upgrading\n") && readme.contains("backup_before_migrate"))
    }
}
