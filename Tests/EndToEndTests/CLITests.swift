import Ledger
import BadgeCore
import Crypto
import Foundation
import Glibc
import JSON
import Schema
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(5))) struct CLITests {
    let dir = TemporaryDirectory("cli")

    func run(_ args: [String], env: [String: String] = [:]) throws -> CLIResult {
        try CLIResult.run(args, in: dir.url, environment: env)
    }

    /// Every misuse: one clear line on standard error, nothing on standard output, non-zero exit.
    @Test(arguments: [
        [], ["frobnicate"], ["serve", "--listen"], ["serve", "--listen", "nowhere"], ["serve", "--bogus"],
        ["codes"], ["codes", "create"], ["codes", "create", "--type", "supporter"], ["codes", "create", "--type", "supporter", "--months", "0"],
        ["codes", "create", "--type", "supporter", "--months", "3", "--payment", "maybe"],
        ["codes", "create", "--type", "supporter", "--months", "3", "--expires", "tomorrow"],
        ["codes", "revoke"], ["codes", "revoke", "SB-NOT-A-CODE"], ["codes", "wat"],
        ["catalog", "add-price", "--type", "supporter"], ["catalog", "add-offer", "--months", "3"], ["catalog", "disable", "nope"],
        ["ledger", "show"], ["ledger", "show", "not-a-key"], ["ledger", "credit", "MCowBQYDK2VwAyEAebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ=", "--months", "2"],
        ["issuer"], ["issuer", "sign", "--index", "1"], ["issuer", "verify", "--public-key", "x", "--credential", "/nonexistent"],
        ["issuer", "show"], ["issuer", "add", "--index", "9"],
        ["issuer", "add", "--index", "2", "--secret-key", "AAAA"], ["issuer", "add", "--index", "2", "--secret-key-file", "/nonexistent"],
        ["client", "--server", "http://127.0.0.1:1", "catalog"], ["client", "wat"],
        ["catalog", "list", "--config", "/nonexistent.ini"],
        ["schema", "--yaml"], ["schema", "extra"],
    ])
    func misuseIsOneLineAndNonZero(_ args: [String]) throws {
        let r = try run(args + (args.first == "client" || args.isEmpty ? [] : ["--data", dir.file("data")]))
        #expect(r.status != 0, "\(args)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(args): \(r.stderr)")
        #expect(lines.first?.hasPrefix("badge-service: ") == true)
        #expect(r.stdout.isEmpty || args.first == "client", "\(args): \(r.stdout)")
    }

    @Test(arguments: [["--help"], ["serve", "--help"], ["issuer", "--help"], ["codes", "--help"], ["catalog", "--help"],
                      ["ledger", "--help"], ["client", "--help"], ["init", "--help"], ["codes", "create", "--help"],
                      ["schema", "--help"]])
    func helpWorksEverywhere(_ args: [String]) throws {
        let r = try run(args)
        #expect(r.status == 0)
        #expect(r.stdout.contains("Usage: badge-service"))
        #expect(r.stderr.isEmpty)
    }

    /// `schema` prints the files of schema/ byte for byte: the JTD schema, and with --openapi the
    /// OpenAPI document, which needs no configuration or data directory.
    @Test func schemaPrintsTheContractFiles() throws {
        for (args, file) in [(["schema"], "schema/badges-rpc.schema.json"), (["schema", "--openapi"], "schema/badges-rpc.openapi.json")] {
            let r = try run(args)
            #expect(r.status == 0 && r.stderr.isEmpty, "\(args): \(r.stderr)")
            let committed = try String(contentsOf: Repository.root.appendingPathComponent(file), encoding: .utf8)
            #expect(r.stdout == committed, "\(args)")
        }
    }

    @Test func issuerKeygenSignVerifyAgreeWithAnIndependentVerifier() throws {
        let keygen = try run(["issuer", "keygen"])
        #expect(keygen.status == 0)
        let keys = try JSONValue.parse(keygen.stdout)
        let secret = try #require(keys["secretKey"]?.stringValue)
        let publicKey = try #require(keys["publicKey"]?.stringValue)
        #expect(secret.count == 44 && publicKey.count == 128)
        let master = Base64URL.encode(SecureRandom.bytes(32))
        let keyFile = dir.file("issuer.key")
        try Data(secret.utf8).write(to: URL(fileURLWithPath: keyFile))
        let masterFile = dir.file("master.key")
        try Data((master + "\n").utf8).write(to: URL(fileURLWithPath: masterFile))
        // the master key on the command line is no longer an option
        let exposed = try run(["issuer", "sign", "--secret-key-file", keyFile, "--index", "3", "--master-key", master,
                               "--expiry", "2026-04-14T00:00:00Z", "--type", "supporter"])
        #expect(exposed.status == 2 && !exposed.stderr.contains(master), "\(exposed.stderr)")
        let signed = try run(["issuer", "sign", "--secret-key-file", keyFile, "--index", "3", "--master-key-file", masterFile,
                              "--expiry", "2026-04-14T00:00:00Z", "--type", "supporter"])
        #expect(signed.status == 0, "\(signed.stderr)")
        let json = try JSONValue.parse(signed.stdout)
        #expect(BadgeRPCSchema.shared.validate(json, definition: "credential") == [])
        let credential = try BadgeCredential(json: json)
        #expect(credential.keyIndex == 3 && credential.signature.count == 80)

        var flippedSignature = credential
        flippedSignature.signature[40] ^= 0x01
        var flippedExpiry = credential
        flippedExpiry.expiry = credential.expiry.adding(seconds: 1)
        var flippedType = credential
        flippedType.badgeType = "supportes"
        var flippedMaster = credential
        flippedMaster.masterKey[31] ^= 0x80
        let verdicts = try BBSPeer.verify(publicKey: publicKey, credentials: [credential, flippedSignature, flippedExpiry, flippedType, flippedMaster].map(\.json))
        #expect(verdicts == ["valid", "invalid", "invalid", "invalid", "invalid"])

        // our own verify command agrees, by exit status
        let good = dir.file("good.json"), bad = dir.file("bad.json")
        try signed.stdout.write(toFile: good, atomically: true, encoding: .utf8)
        try String(decoding: flippedType.json.serialized(), as: UTF8.self).write(toFile: bad, atomically: true, encoding: .utf8)
        #expect(try run(["issuer", "verify", "--public-key", publicKey, "--credential", good]).status == 0)
        #expect(try run(["issuer", "verify", "--public-key", publicKey, "--credential", bad]).status == 1)
    }

    @Test func issuerShowAddAndAMismatchedKeyFileRefusesToStart() throws {
        let data = dir.file("data")
        // the first serve creates key 1; here `issuer show` on a missing file is a clear error
        #expect(try run(["issuer", "show", "--data", data]).status == 1)
        let service = try ServiceProcess(data: dir)
        #expect(service.stop() == 0)
        let shown = try JSONValue.parse(try run(["issuer", "show", "--data", dir.file("badge-data")]).stdout)
        #expect(shown["active"] == 1)
        #expect(shown["keys"]?["1"]?.stringValue?.count == 128)
        let added = try run(["issuer", "add", "--index", "2", "--activate", "--data", dir.file("badge-data")])
        #expect(added.status == 0, "\(added.stderr)")
        let after = try JSONValue.parse(try run(["issuer", "show", "--data", dir.file("badge-data")]).stdout)
        #expect(after["active"] == 2 && after["keys"]?["1"] == shown["keys"]?["1"])
        #expect(try run(["issuer", "add", "--index", "2", "--data", dir.file("badge-data")]).status == 1)

        // a secret that does not derive its configured public key: serve refuses to start
        let file = dir.file("badge-data/issuer-keys.json")
        var text = try String(contentsOfFile: file, encoding: .utf8)
        let other = try JSONValue.parse(try run(["issuer", "keygen"]).stdout)["publicKey"]!.stringValue!
        text = text.replacingOccurrences(of: after["keys"]!["2"]!.stringValue!, with: other)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)  // the atomic write made it 0644, which serve refuses for another reason
        let refused = try run(["serve", "--listen", "127.0.0.1:0", "--data", dir.file("badge-data")])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("the secret key's public key"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1)
        #expect(!refused.stderr.contains("secretKey"))
    }

    /// A data directory prepared by `init`, as operator commands need.
    func initializedData() throws -> String {
        let data = dir.file("data")
        let made = try run(["init", "--data", data])
        #expect(made.status == 0, "\(made.stderr)")
        return data
    }

    @Test func codesAndLedgerCommands() throws {
        let data = try initializedData()
        let created = try run(["codes", "create", "--type", "investor", "--months", "255", "--uses", "3", "--count", "4",
                               "--expires", "2099-01-01T00:00:00Z", "--data", data])
        #expect(created.status == 0)
        let codes = created.stdout.split(separator: "\n").map(String.init)
        #expect(codes.count == 4)
        for c in codes { #expect(c.count == 26 && c.hasPrefix("SB-")) }
        let listed = try run(["codes", "list", "--data", data])
        #expect(listed.stdout.split(separator: "\n").count == 4)
        for c in codes { #expect(!listed.stdout.contains(c)) }
        #expect(listed.stdout.contains("investor  255 months  0/3 used  paid  expires 2099-01-01T00:00:00Z"))
        // a code on the command line is refused without being echoed; from a file it is revoked
        let exposed = try run(["codes", "revoke", codes[0], "--data", data])
        #expect(exposed.status == 2 && exposed.stderr.contains("visible to other users") && !exposed.stderr.contains(codes[0]),
                "\(exposed.stderr)")
        #expect(!(try run(["codes", "list", "--data", data]).stdout.contains("REVOKED")))
        let codeFile = dir.file("code.txt")
        try Data((codes[0].lowercased() + "\n").utf8).write(to: URL(fileURLWithPath: codeFile))
        #expect(try run(["codes", "revoke", "--code-file", codeFile, "--data", data]).status == 0)
        #expect(try run(["codes", "list", "--data", data]).stdout.contains("REVOKED"))
        #expect(try run(["codes", "revoke", "--code-file", codeFile, "--data", data]).status == 1)
        // A code never seen (its output was cut short) is named by the hash prefix the list shows.
        let prefix = String(Hex.encode(SHA256.hash(BadgeCode(parsing: codes[1])!.hashInput)).prefix(12))
        #expect(try run(["codes", "revoke", prefix.uppercased(), "--data", data]).status == 0)
        let relisted = try run(["codes", "list", "--data", data]).stdout.split(separator: "\n")
        #expect(relisted.first { $0.hasPrefix(prefix) }?.contains("REVOKED") == true)
        #expect(relisted.filter { $0.contains("REVOKED") }.count == 2)
        let short = try run(["codes", "revoke", "abc123", "--data", data])
        #expect(short.status == 1 && short.stderr.contains("hash prefix of 8 to 64 hex digits"))
        #expect(try run(["codes", "revoke", prefix, "--data", data]).status == 1)
        // the stored database holds no code in clear
        let db = try Data(contentsOf: URL(fileURLWithPath: data + "/badges.sqlite"))
        for c in codes { #expect(db.range(of: Data(BadgeCode(parsing: c)!.canonical.utf8)) == nil) }
    }

    @Test func catalogCommands() throws {
        let data = try initializedData()
        let list = try run(["catalog", "list", "--data", data])
        #expect(list.stdout.split(separator: "\n").count == 6)  // two prices, four per-price offers
        #expect(list.stdout.contains("29e35444-2f85-43fb-8933-16875e6d3776"))
        let price = try run(["catalog", "add-price", "--type", "legend", "--month-price", "6500", "--currency", "usd",
                             "--replace", "6a778279-753e-45db-8acc-0e382c1d054a", "--data", data])
        #expect(price.status == 0)
        let offer = try run(["catalog", "add-offer", "--months", "6", "--discount", "15", "--data", data])
        #expect(offer.status == 0)
        #expect(try run(["catalog", "disable", offer.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "--data", data]).status == 0)
        let after = try run(["catalog", "list", "--data", data]).stdout
        #expect(after.contains("6a778279-753e-45db-8acc-0e382c1d054a  legend  7000 usd/month  deprecated"))
        #expect(after.contains("legend  6500 usd/month  active"))
        #expect(after.contains("6 months, 15% off  price any  disabled"))
    }

    @Test func storeProductCommands() throws {
        let data = try initializedData()
        let listed = try run(["catalog", "products", "--data", data]).stdout.split(separator: "\n").map(String.init)
        #expect(listed.count == 12)
        #expect(listed.contains("apple  SUBSCR_BADGE_LEGEND_YEAR_01  legend  12 months  subscription"))
        #expect(listed.contains("google  subscr_badge_supporter_01  base plan subscr-badge-supporter-month-02  supporter  1 month  subscription"))

        let set = try run(["catalog", "set-product", "--store", "apple", "--product", "BADGE_LEGEND_03", "--type", "legend",
                           "--months", "3", "--kind", "one-time", "--data", data])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try run(["catalog", "products", "--data", data]).stdout.contains("apple  BADGE_LEGEND_03  legend  3 months  one-time"))
        #expect(try run(["catalog", "remove-product", "--store", "apple", "--product", "BADGE_LEGEND_03", "--data", data]).status == 0)
        #expect(try !run(["catalog", "products", "--data", data]).stdout.contains("BADGE_LEGEND_03"))

        // Each refusal is one line naming the option at fault, and changes nothing.
        let refusals: [([String], String)] = [
            (["--store", "amazon", "--product", "x", "--type", "legend", "--months", "1", "--kind", "one-time"], "--store"),
            (["--store", "google", "--product", "subscr_x", "--type", "legend", "--months", "1", "--kind", "subscription"], "--base-plan is required"),
            (["--store", "apple", "--product", "X", "--base-plan", "p", "--type", "legend", "--months", "1", "--kind", "subscription"], "--base-plan applies only"),
            (["--store", "google", "--product", "Badge", "--type", "legend", "--months", "1", "--kind", "one-time"], "--product"),
            (["--store", "google", "--product", "subscr_other", "--base-plan", "subscr-badge-legend-year-01", "--type", "legend",
              "--months", "12", "--kind", "subscription"], "already sold under product subscr_badge_legend_01"),
            (["--store", "apple", "--product", "X", "--type", "gold", "--months", "1", "--kind", "one-time"], "--type"),
            (["--store", "apple", "--product", "X", "--type", "legend", "--months", "1", "--kind", "forever"], "--kind"),
        ]
        for (arguments, expected) in refusals {
            let refused = try run(["catalog", "set-product"] + arguments + ["--data", data])
            #expect(refused.status != 0 && refused.stderr.contains(expected), "\(arguments): \(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1)
        }
        let missing = try run(["catalog", "remove-product", "--store", "apple", "--product", "NOPE", "--data", data])
        #expect(missing.status != 0 && missing.stderr.contains("no apple product NOPE is priced"))
        #expect(try run(["catalog", "products", "--data", data]).stdout.split(separator: "\n").count == 12)
    }
}
