import Foundation
import Glibc
import Storage
import TestSupport
import Testing

/// What `serve` and `init` refuse in a data directory they did not make as they would: a lost
/// database, a lock file that is a symbolic link, a directory others may write to.
extension OperationsTests {
    @Test func aMissingDatabaseBesideItsKeyFileIsNeverRecreated() throws {
        let data = dir.file("data"), database = data + "/badges.sqlite"
        #expect(try CLIResult.run(["init", "--data", data], in: dir.url).status == 0)
        try FileManager.default.moveItem(atPath: database, toPath: dir.file("moved.sqlite"))
        for command in [["init"], ["serve", "--listen", "127.0.0.1:0"]] {
            let refused = try runBriefly(command + ["--data", data])
            #expect(refused.status == 1, "\(command): \(refused.stderr)")
            let lines = refused.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(command): \(refused.stderr)")
            #expect(lines.last?.contains("no database at \(database) but issuer key file \(data)/issuer-keys.json exists") == true,
                    "\(command): \(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: database), "\(command)")
        }
        // restored, it serves again
        try FileManager.default.moveItem(atPath: dir.file("moved.sqlite"), toPath: database)
        let restored = try CLIResult.run(["init", "--data", data], in: dir.url)
        #expect(restored.status == 0 && restored.stdout.contains("nothing to do"), "\(restored.stderr)")
        // A key file provisioned before the first start: init makes the database only when told so.
        let provisioned = dir.file("provisioned")
        try FileManager.default.createDirectory(atPath: provisioned, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        try FileManager.default.copyItem(atPath: data + "/issuer-keys.json", toPath: provisioned + "/issuer-keys.json")
        #expect(try CLIResult.run(["init", "--data", provisioned], in: dir.url).status == 1)
        let made = try CLIResult.run(["init", "--new-database", "--data", provisioned], in: dir.url)
        #expect(made.status == 0 && made.stdout.contains("created database"), "\(made.stdout) \(made.stderr)")
        #expect(FileManager.default.fileExists(atPath: provisioned + "/badges.sqlite"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: provisioned + "/issuer-keys.json"))
                == Data(contentsOf: URL(fileURLWithPath: data + "/issuer-keys.json")))
    }

    /// An empty database file beside the key file is a database lost too: filling it with tables
    /// would hide that every purchase is gone.
    @Test func anEmptyDatabaseBesideItsKeyFileIsNeverFilled() throws {
        let data = dir.file("data"), database = data + "/badges.sqlite"
        #expect(try CLIResult.run(["init", "--data", data], in: dir.url).status == 0)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
        #expect(FileManager.default.createFile(atPath: database, contents: nil, attributes: [.posixPermissions: 0o600]))
        for command in [["init"], ["serve", "--listen", "127.0.0.1:0"], ["migrate"]] {
            let refused = try runBriefly(command + ["--data", data])
            #expect(refused.status == 1, "\(command): \(refused.stderr)")
            let lines = refused.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(command): \(refused.stderr)")
            #expect(lines.last?.contains("database \(database) is empty (schema version 0) but issuer key file \(data)/issuer-keys.json exists") == true,
                    "\(command): \(refused.stderr)")
            #expect(try FileManager.default.attributesOfItem(atPath: database)[.size] as? Int == 0, "\(command)")
        }
        let made = try CLIResult.run(["init", "--new-database", "--data", data], in: dir.url)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try SQLiteDatabase.storedSchemaVersion(path: database) == SQLiteDatabase.latestSchemaVersion)
    }

    /// Only serve, init and migrate migrate: any other command refuses a database an older
    /// service left, naming it, and leaves it at its version.
    @Test func onlyServeInitAndMigrateMigrateAnOlderDatabase() throws {
        let data = dir.file("badge-data"), database = data + "/badges.sqlite", backup = dir.file("backup")
        #expect(try CLIResult.run(["init", "--data", data], in: dir.url).status == 0)
        let older = SQLiteDatabase.latestSchemaVersion - 1
        func makeOlder() throws {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
            try SQLiteDatabase.createForTesting(path: database, atVersion: older)
            #expect(try SQLiteDatabase.storedSchemaVersion(path: database) == older)
        }
        try makeOlder()
        for command in [["codes", "list"], ["ledger", "show", "K"], ["catalog", "list"]] {
            let refused = try CLIResult.run(command + ["--data", data], in: dir.url)
            #expect(refused.status == 1, "\(command): \(refused.stderr)")
            let lines = refused.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains(database) && lines[0].contains("schema version \(older)")
                    && lines[0].contains("run badge-service migrate"), "\(command): \(refused.stderr)")
            #expect(try SQLiteDatabase.storedSchemaVersion(path: database) == older, "\(command)")
        }
        // A backup copies the database as it is: one taken before an upgrade keeps the old schema
        // (older binaries refuse a newer one), and the database stays at its version. "DEST/" is DEST.
        let copied = try CLIResult.run(["backup", backup + "/", "--data", data], in: dir.url)
        #expect(copied.status == 0, "\(copied.stderr)")
        #expect(try SQLiteDatabase.storedSchemaVersion(path: backup + "/badges.sqlite") == older)
        #expect(try SQLiteDatabase.storedSchemaVersion(path: database) == older)
        #expect(!FileManager.default.fileExists(atPath: backup + ".partial") && !FileManager.default.fileExists(atPath: backup + "/.partial"))

        let initialised = try CLIResult.run(["init", "--data", data], in: dir.url)
        #expect(initialised.status == 0, "\(initialised.stderr)")
        #expect(try SQLiteDatabase.storedSchemaVersion(path: database) == SQLiteDatabase.latestSchemaVersion)
        try makeOlder()
        let migrated = try CLIResult.run(["migrate", "--data", data], in: dir.url)
        #expect(migrated.status == 0, "\(migrated.stderr)")
        #expect(try SQLiteDatabase.storedSchemaVersion(path: database) == SQLiteDatabase.latestSchemaVersion)
        try makeOlder()
        let service = try ServiceProcess(data: dir)
        #expect(service.stop() == 0)
        #expect(try SQLiteDatabase.storedSchemaVersion(path: database) == SQLiteDatabase.latestSchemaVersion)
    }

    /// A backup is built as DEST.partial and renamed once complete, so what an interrupted one
    /// leaves is never taken for a backup, and is never overwritten by the next one.
    @Test func aBackupIsBuiltUnderAPartialNameAndNeverOverAnother() throws {
        let data = dir.file("badge-data"), backup = dir.file("backup")
        #expect(try CLIResult.run(["init", "--data", data], in: dir.url).status == 0)
        try FileManager.default.createDirectory(atPath: backup + ".partial", withIntermediateDirectories: false)
        let refused = try CLIResult.run(["backup", backup, "--data", data], in: dir.url)
        #expect(refused.status == 1 && refused.stderr.contains("\(backup).partial exists: an interrupted backup"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: backup))
        #expect(try FileManager.default.contentsOfDirectory(atPath: backup + ".partial").isEmpty)
        try FileManager.default.removeItem(atPath: backup + ".partial")
        let made = try CLIResult.run(["backup", backup, "--data", data], in: dir.url)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(!FileManager.default.fileExists(atPath: backup + ".partial"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: backup).sorted() == ["backup.json", "badges.sqlite", "issuer-keys.json"])
    }

    @Test func aSymbolicLinkAsTheLockFileIsRefusedAndItsTargetKept() throws {
        let data = dir.file("data"), lock = data + "/badge-service.lock", target = dir.file("elsewhere")
        #expect(try CLIResult.run(["init", "--data", data], in: dir.url).status == 0)
        try "keep me\n".write(toFile: target, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: lock, withDestinationPath: target)
        let refused = try runBriefly(["serve", "--listen", "127.0.0.1:0", "--data", data])
        #expect(refused.status == 1, "\(refused.stderr)")
        let lines = refused.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(refused.stderr)")
        #expect(lines.last?.contains("lock file \(lock) is a symbolic link") == true, "\(refused.stderr)")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me\n")
    }

    @Test func aDataDirectoryOthersMayWriteToRefusesToStart() throws {
        let first = try ServiceProcess(data: dir)
        #expect(first.stop() == 0)
        let data = dir.file("badge-data")
        chmod(data, 0o770)
        for command in [["serve", "--listen", "127.0.0.1:0"], ["init"]] {
            let refused = try runBriefly(command + ["--data", data])
            #expect(refused.status == 1, "\(command): \(refused.stderr)")
            let lines = refused.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(command): \(refused.stderr)")
            #expect(lines.last?.contains("data directory \(data) has mode 0770: writable by group or others; chmod 700 it") == true,
                    "\(command): \(refused.stderr)")
        }
        // readable by the group is the operator's choice; only writing is refused
        chmod(data, 0o750)
        let again = try ServiceProcess(data: dir)
        #expect(again.stop() == 0)
    }
}
