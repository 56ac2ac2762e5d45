import Foundation
import Glibc
import JSON
import TestSupport
import Testing

/// An operator's first deployment on the built binary: a start that cannot bind makes nothing, the
/// first start says which issuer key clients need, a lost key file is never silently replaced, and
/// commands run as another user than the data's owner refuse before they write.
@Suite struct FirstDeploymentTests {
    let dir = TemporaryDirectory("e2e-first-deploy")

    /// `serve` with `arguments`, which must refuse to start: one that starts is stopped after 15 s
    /// (exit status 124) rather than hanging the test.
    func serveRefused(_ arguments: [String]) throws -> CLIResult {
        try CLIResult.run(["15", ServiceProcess.executable, "serve"] + arguments, in: dir.url, executable: "/usr/bin/timeout")
    }

    @Test func aServeThatCannotBindMakesNoDataDirectoryDatabaseOrKey() throws {
        // Hold a port: bound and listening, as another program would.
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(holder, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(bound == 0 && listen(holder, 1) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(holder, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))

        let data = dir.file("badge-data")
        let refused = try serveRefused(["--listen", "127.0.0.1:\(port)", "--data", data])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr == "badge-service: cannot listen on 127.0.0.1:\(port): bind 127.0.0.1:\(port): Address already in use\n",
                "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: data), "nothing is made before the address is bound")
    }

    @Test func theFirstStartPrintsTheNewIssuerPublicKeyAndThatClientsNeedIt() throws {
        let service = try ServiceProcess(data: dir)
        let shown = try JSONValue.parse(Array(try service.cli(["issuer", "show"]).stdout.utf8))
        let publicKey = try #require(shown["keys"]?["1"]?.stringValue)
        let lines = service.stderr.split(separator: "\n")
        #expect(lines.contains { $0.contains("created issuer key index 1 in ") && $0.contains("its public key is \(publicKey)") },
                "\(service.stderr)")
        #expect(lines.contains { $0.contains("SimpleX clients verify badges only with the issuer public keys they are configured with") },
                "\(service.stderr)")
        #expect(service.stop() == 0)
        // a later start made nothing, and says nothing of it
        let again = try ServiceProcess(data: dir)
        #expect(!again.stderr.contains("created issuer key"), "\(again.stderr)")
        #expect(again.stop() == 0)
    }

    /// A key file lost before anything was sold is still the key the database recorded: a new one
    /// is never made in its place.
    @Test func aKeyFileLostBeforeTheFirstSaleIsNeverReplaced() throws {
        let data = dir.file("badge-data"), keyFile = data + "/issuer-keys.json"
        #expect(try CLIResult.run(["init", "--data", data], in: dir.url).status == 0)
        let shown = try JSONValue.parse(Array(try CLIResult.run(["issuer", "show", "--data", data], in: dir.url).stdout.utf8))
        let publicKey = try #require(shown["keys"]?["1"]?.stringValue)
        try FileManager.default.removeItem(atPath: keyFile)
        for command in ["init", "serve"] {
            let refused = command == "serve" ? try serveRefused(["--listen", "127.0.0.1:0", "--data", data])
                                             : try CLIResult.run(["init", "--data", data], in: dir.url)
            #expect(refused.status == 1, "\(command): \(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(command): \(refused.stderr)")
            #expect(refused.stderr.contains("issuer key file \(keyFile) is missing but database \(data)/badges.sqlite records issuer key index 1 "
                                            + "(public key \(publicKey.prefix(12))…): copy the key file from the instance that made it"),
                    "\(command): \(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: keyFile))
        }
        // a key file holding another key at the recorded index is refused, naming both keys
        let other = try JSONValue.parse(Array(try CLIResult.run(["issuer", "keygen"], in: dir.url).stdout.utf8))
        let otherSecret = try #require(other["secretKey"]?.stringValue), otherPublic = try #require(other["publicKey"]?.stringValue)
        try "{\"active\": 1, \"keys\": {\"1\": {\"secretKey\": \"\(otherSecret)\"}}}".write(toFile: keyFile, atomically: true, encoding: .utf8)
        chmod(keyFile, 0o600)
        let mismatch = try CLIResult.run(["init", "--data", data], in: dir.url)
        #expect(mismatch.status == 1 && mismatch.stderr.contains(
            "issuer key file \(keyFile) holds key index 1 with public key \(otherPublic.prefix(12))… but database \(data)/badges.sqlite "
                + "recorded \(publicKey.prefix(12))… for it"), "\(mismatch.stderr)")
    }

    /// Run as root over a data directory another user owns, a command that would write there
    /// refuses, naming the owner and how to run it as that user; it writes nothing.
    @Test(arguments: [["codes", "create", "--type", "supporter", "--months", "1"], ["init"], ["issuer", "add", "--index", "2"],
                      ["migrate"], ["ledger", "credit", "MCowBQYDK2VwAyEAebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ=", "--months", "1", "--support"]])
    func aCommandRunAsAnotherUserThanTheDataOwnerRefuses(_ command: [String]) throws {
        let data = dir.file("badge-data")
        #expect(try CLIResult.run(["init", "--data", data], in: dir.url).status == 0)
        let owner = try #require(getpwnam("nobody")).pointee.pw_uid
        #expect(geteuid() != owner)
        let before = try FileManager.default.contentsOfDirectory(atPath: data).sorted()
        for entry in [data] + before.map({ data + "/" + $0 }) { #expect(chown(entry, owner, gid_t.max) == 0) }
        let refused = try CLIResult.run(command + ["--data", data], in: dir.url)
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("data directory \(data) belongs to user nobody (uid \(owner)), but this command runs as "), "\(refused.stderr)")
        #expect(refused.stderr.contains("sudo -u nobody badge-service …, runuser -u nobody -- badge-service …, or beside a DynamicUser= unit systemd-run "),
                "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: data).sorted() == before, "nothing written")
    }
}
