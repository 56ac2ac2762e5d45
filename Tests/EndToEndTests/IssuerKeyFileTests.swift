import Foundation
import Glibc
import JSON
import TestSupport
import Testing

/// How `issuer add` and `issuer activate` write the key file: in one step, 0600, and through a
/// symbolic link (a secrets mount) to the file it names.
extension OperationsTests {
    func inode(_ path: String) -> ino_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_ino : 0
    }

    @Test func issuerAddAndActivateReplaceTheKeyFileInOneStepThroughASymbolicLink() throws {
        let data = dir.file("data"), link = data + "/issuer-keys.json"
        let secrets = dir.file("secrets"), target = secrets + "/issuer-keys.json"
        #expect(try CLIResult.run(["init", "--data", data], in: dir.url).status == 0)
        try FileManager.default.createDirectory(atPath: secrets, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try FileManager.default.moveItem(atPath: link, toPath: target)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "../secrets/issuer-keys.json")

        for (command, active) in [(["issuer", "add", "--index", "2"], 1), (["issuer", "activate", "--index", "2"], 2)] {
            let before = inode(target)
            let r = try CLIResult.run(command + ["--data", data], in: dir.url)
            #expect(r.status == 0, "\(command): \(r.stderr)")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "../secrets/issuer-keys.json", "\(command)")
            // renamed over the old file (a crash leaves one or the other), never rewritten in place
            #expect(inode(target) != before, "\(command)")
            #expect(mode(target) == 0o600, "\(command): \(String(mode(target), radix: 8))")
            let file = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: target))))
            #expect(file["active"] == .number(JSONNumber(active)) && file["keys"]?["2"] != nil, "\(command)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: secrets) == ["issuer-keys.json"], "\(command)")
        }
        #expect(try CLIResult.run(["issuer", "show", "--data", data], in: dir.url).stdout.hasPrefix("{\"active\": 2, "))
    }
}
