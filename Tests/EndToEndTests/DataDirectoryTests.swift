import Foundation
import Glibc
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
