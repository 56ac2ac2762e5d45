import Foundation
import Glibc
import TestSupport
import Testing

/// Issue 7, item 9: strict configuration, `config check` and one-line file-system errors, tried
/// on the real binary.
extension OperationsTests {
    func writeConfiguration(_ text: String, name: String = "badge-service.ini") throws -> String {
        let path = dir.file(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
        return path
    }

    @Test func everyConfigurationMistakeIsReportedAtOnceAndNothingStarts() throws {
        let file = try writeConfiguration("""
            [server]
            listn = 127.0.0.1:9000
            max_body = "lots"
            access_log = 'off'
            [sever]
            listen = 127.0.0.1:9001
            [rpc]
            front_token = "short"
            this line is not a setting
            """)
        let data = dir.file("never-made")
        let environment = ["BADGE_SERVICE_SERVER_LISTN": "127.0.0.1:9002", "BADGE_SERVICE_SERVER_WORKERS": "many"]
        let expected = [
            "badge-service: \(file):2: unknown key 'listn' in [server] (did you mean 'listen'?)",
            "badge-service: \(file):3: [server] max_body = lots: expected bytes in 1...16777216 (1 to 16MiB): "
                + "a bare number of bytes, or a number with KiB, MiB or GiB (64KiB, 16MiB)",
            "badge-service: \(file):5: unknown section [sever] (did you mean [server]?)",
            "badge-service: \(file):8: [rpc] front_token = (hidden): expected 32 or more characters of A-Z a-z 0-9 - . _ ~ + / (then = padding)",
            "badge-service: \(file):9: expected key = value, [section] or a # comment",
            "badge-service: BADGE_SERVICE_SERVER_LISTN: unknown configuration variable (did you mean BADGE_SERVICE_SERVER_LISTEN?)",
            "badge-service: BADGE_SERVICE_SERVER_WORKERS=many: expected an integer in 1...1024",
        ]
        for command in [["serve", "--listen", "127.0.0.1:0"], ["config", "check"], ["codes", "list"]] {
            let r = try CLIResult.run(command + ["--config", file, "--data", data], in: dir.url, environment: environment)
            #expect(r.status == 1, "\(command): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").map(String.init) == expected, "\(command): \(r.stderr)")
            #expect(r.stdout.isEmpty, "\(command): \(r.stdout)")
            #expect(!r.stderr.contains("short"))
        }
        #expect(!FileManager.default.fileExists(atPath: data))
    }

    /// `config check` refuses what `serve` refuses at start, in the same line: a section that
    /// cannot be deployed, keys that contradict each other, an address no one could bind.
    @Test(arguments: [
        ("[database]\nurl = postgresql://badges@127.0.0.1:1/badges\npassword = x\npassword_file = /nonexistent\n",
         "[database] password and password_file are both set: keep one"),
        ("[database]\nurl = postgresql://badges@127.0.0.1:1/badges\npassword_file = /nonexistent\n",
         "cannot read [database] password_file /nonexistent: No such file or directory"),
        ("[server]\nlisten = 1.2.3.4.5:0\n", ":2: [server] listen = 1.2.3.4.5:0: expected HOST:PORT with HOST an IPv4 address"),
        ("[server]\nlisten = bad_host:0\n", ":2: [server] listen = bad_host:0: expected HOST:PORT"),
        ("[stripe]\nsecret_key = sk_test_x # the test key\n", ":2: 'secret_key': a # or ; after a space is a comment after the value"),
        // issue 33: a key of the wrong kind fails here, not as internal at the first invoice
        ("[stripe]\nsecret_key = pk_live_publishable\n", ":2: [stripe] secret_key = (hidden): expected a Stripe secret key (sk_…) or restricted key (rk_…) from the Dashboard's API keys page; this is a publishable key (pk_…)"),
        ("[stripe]\nwebhook_secret = endpoint-secret\n", ":2: [stripe] webhook_secret = (hidden): expected the webhook endpoint's signing secret, whsec_… whole"),
        ("[btcpay]\nurl = https://btcpay.example.com/api/v1\n", ":2: [btcpay] url = https://btcpay.example.com/api/v1: expected the server's base URL"),
        ("[server]\nhead_timeout = 1500ms\n", ":2: [server] head_timeout = 1500ms: expected whole seconds, which 1500ms is not (nothing is rounded)"),
        ("[server]\nmax_body = 64KB\n", ":2: [server] max_body = 64KB: expected bytes in 1...16777216 (1 to 16MiB): a bare number of bytes, or a number with KiB, MiB or GiB (64KiB, 16MiB); did you mean 64KiB?"),
    ])
    func configCheckRefusesWhatServeRefuses(_ text: String, _ expected: String) throws {
        let file = try writeConfiguration(text)
        let data = dir.file("never-made")
        for command in [["config", "check"], ["serve"]] {
            let r = try runBriefly(command + ["--config", file, "--data", data])
            #expect(r.status == 1, "\(command): \(r.stderr)")
            let lines = r.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains(expected), "\(command): expected \(expected) in \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: data))
    }

    @Test func configCheckPrintsEveryKeyItsValueAndWhereItCameFromWithSecretsHidden() throws {
        let token = String(repeating: "T", count: 40)
        let secret = "sk_test_do_not_show"
        let file = try writeConfiguration("""
            # quoted values keep what is inside the quotes
            [server]
            listen = "127.0.0.1:9090"
            data_dir = 'my data'
            [stripe]
            secret_key = \(secret)
            webhook_secret = whsec_do_not_show
            success_url = https://shop.test/ok
            cancel_url = https://shop.test/no
            """)
        let r = try CLIResult.run(["config", "check", "--config", file], in: dir.url,
                                  environment: ["BADGE_SERVICE_RPC_FRONT_TOKEN": token, "BADGE_SERVICE_SERVER": "http://[::1]:1"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        for line in [
            "[server] listen = 127.0.0.1:9090 \(file):3",
            "[server] data_dir = my data \(file):4",
            "[server] max_body = 65536 default",
            "[database] path = my data/badges.sqlite default: <data_dir>/badges.sqlite",
            "[rpc] front_token = (set, hidden) BADGE_SERVICE_RPC_FRONT_TOKEN",
            "[apple] absent default",
            "[stripe] present \(file):5",
            "[stripe] api_url = https://api.stripe.com default",
            "[stripe] publishable_key = (not set) default",
            "[stripe] secret_key = (set, hidden) \(file):6",
            "[development] credit_test_purchases = off default",
        ] {
            #expect(lines.contains(line), "missing \(line) in \(r.stdout)")
        }
        // an absent section's keys are unused: not listed
        #expect(!lines.contains { $0.hasPrefix("[apple] bundle_id") }, "\(r.stdout)")
        #expect(!r.stdout.contains(token) && !r.stdout.contains(secret) && !r.stderr.contains(secret))
        #expect(!r.stdout.contains("whsec_do_not_show") && !r.stderr.contains("whsec_do_not_show"))
        // every store section is deployed: nothing is warned about as ignored
        #expect(!r.stderr.contains("is ignored"), "\(r.stderr)")
        // nothing was created: no data directory, relative or otherwise
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["badge-service.ini"])

        // --data is a source too
        let flagged = try CLIResult.run(["config", "check", "--data", dir.file("d")], in: dir.url)
        #expect(flagged.status == 0 && flagged.stderr.isEmpty, "\(flagged.stderr)")
        #expect(flagged.stdout.contains("[server] data_dir = \(dir.file("d"))"), "\(flagged.stdout)")
        #expect(flagged.stdout.split(separator: "\n").contains { $0.hasPrefix("[server] data_dir") && $0.hasSuffix(" --data") })
        #expect(!FileManager.default.fileExists(atPath: dir.file("d")))
        #expect(try CLIResult.run(["config", "frobnicate"], in: dir.url).status == 2)
    }

    /// `[wallet]`: its keys listed by `config check` with where they came from, the dev-grant
    /// switch warned about, and a packs file that cannot be a table named in one line.
    @Test func configCheckListsTheWalletKeysWarnsAboutDevGrantsAndNamesABadPacksFile() throws {
        let file = try writeConfiguration("""
            [wallet]
            allow_dev_coin_grants = on
            store_fee_percent = 15
            """)
        let r = try CLIResult.run(["config", "check", "--config", file], in: dir.url)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        for line in ["[wallet] allow_dev_coin_grants = on \(file):2", "[wallet] store_fee_percent = 15 \(file):3",
                     "[wallet] packs_file = (not set) default: the built-in table", "[wallet] sandbox = on default",
                     "[wallet] require_account_binding = off default"] {
            #expect(lines.contains(line), "missing \(line) in \(r.stdout)")
        }
        #expect(r.stderr.contains("warning: [wallet] allow_dev_coin_grants is on"), "\(r.stderr)")

        let packs = dir.file("packs.json")
        try Data(#"[{"packId":"one","coins":95,"grossUsdCents":100,"appStoreProductId":"A","playProductId":"a"},{"packId":"one","coins":1,"grossUsdCents":1,"appStoreProductId":"B","playProductId":"b"}]"#.utf8)
            .write(to: URL(fileURLWithPath: packs))
        let bad = try CLIResult.run(["config", "check"], in: dir.url, environment: ["BADGE_SERVICE_WALLET_PACKS_FILE": packs])
        #expect(bad.status == 1 && bad.stderr == "badge-service: [wallet] packs_file: \(packs): pack id one is repeated\n", "\(bad.stderr)")
        let fee = try CLIResult.run(["config", "check"], in: dir.url, environment: ["BADGE_SERVICE_WALLET_STORE_FEE_PERCENT": "100"])
        #expect(fee.status == 1 && fee.stderr.contains("BADGE_SERVICE_WALLET_STORE_FEE_PERCENT=100: expected an integer in 0...99"), "\(fee.stderr)")

        // The Sandbox and account-binding switches: read, shown with their source, a bad value one line.
        let switched = try writeConfiguration("""
            [wallet]
            sandbox = off
            require_account_binding = on
            """, name: "wallet-switched.ini")
        let on = try CLIResult.run(["config", "check", "--config", switched], in: dir.url)
        let onLines = on.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(on.status == 0 && onLines.contains("[wallet] sandbox = off \(switched):2")
                && onLines.contains("[wallet] require_account_binding = on \(switched):3"), "\(on.stdout) \(on.stderr)")
        let sandbox = try CLIResult.run(["config", "check"], in: dir.url, environment: ["BADGE_SERVICE_WALLET_SANDBOX": "maybe"])
        #expect(sandbox.status == 1 && sandbox.stderr.split(separator: "\n").count == 1
                && sandbox.stderr.contains("BADGE_SERVICE_WALLET_SANDBOX=maybe: expected on or off"), "\(sandbox.stderr)")
        let binding = try writeConfiguration("""
            [wallet]
            require_account_binding = sometimes
            """, name: "wallet-binding.ini")
        let bad2 = try CLIResult.run(["config", "check", "--config", binding], in: dir.url)
        #expect(bad2.status == 1 && bad2.stderr.contains("require_account_binding") && bad2.stderr.contains("\(binding):2"), "\(bad2.stderr)")
    }

    /// Each file-system failure is one line naming the path and the reason: never a Foundation
    /// error dump, never SQLite's "unable to open database file" alone.
    @Test func fileSystemFailuresAreOneLineNamingThePathAndTheReason() throws {
        let data = dir.file("data")
        #expect(try CLIResult.run(["init", "--data", data], in: dir.url).status == 0)
        let aFile = try writeConfiguration("not a directory", name: "plain-file")
        let blocked = dir.file("blocked-wal")
        #expect(try CLIResult.run(["init", "--data", blocked], in: dir.url).status == 0)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: blocked + "/badges.sqlite" + suffix) }
        try FileManager.default.createDirectory(atPath: blocked + "/badges.sqlite-wal", withIntermediateDirectories: false)
        let cases: [(arguments: [String], config: String?, expected: String)] = [
            (["codes", "list"], nil, "cannot read configuration file \(dir.file("missing.ini")): No such file or directory"),
            (["codes", "list"], "[database]\npath = \(data)\n", "cannot open database \(data): is a directory"),
            (["serve", "--listen", "127.0.0.1:0"], "[database]\npath = \(data)\n", "cannot open database \(data): is a directory"),
            (["serve", "--listen", "127.0.0.1:0"], "[database]\npath = \(aFile)/badges.sqlite\n", "\(aFile)/badges.sqlite: Not a directory"),
            (["serve", "--listen", "127.0.0.1:0"], "[issuer]\nkey_file = \(data)\n", "cannot read issuer key file \(data): is a directory"),
            // SQLite opens lazily: the write-ahead log it cannot open fails the first statement
            (["serve", "--listen", "127.0.0.1:0", "--data", dir.file("blocked-wal")], nil,
             "cannot open database \(dir.file("blocked-wal"))/badges.sqlite: unable to open database file"),
            (["codes", "list", "--data", dir.file("blocked-wal")], nil,
             "cannot open database \(dir.file("blocked-wal"))/badges.sqlite: unable to open database file"),
            (["serve", "--listen", "127.0.0.1:0", "--data", aFile], nil, "\(aFile)"),
            (["serve", "--listen", "127.0.0.1:0", "--data", aFile + "/sub"], nil, "\(aFile)/sub: Not a directory"),
            (["backup", dir.file("missing/deeper")], nil, "\(dir.file("missing/deeper")).partial: No such file or directory"),
        ]
        for (index, c) in cases.enumerated() {
            var arguments = c.arguments
            if !arguments.contains("--data") { arguments += ["--data", data] }
            if index == 0 {
                arguments += ["--config", dir.file("missing.ini")]
            } else if let text = c.config {
                arguments += ["--config", try writeConfiguration(text, name: "case-\(index).ini")]
            }
            let r = try runBriefly(arguments)
            #expect(r.status == 1, "\(arguments): \(r.stderr)")
            let lines = r.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(arguments): \(r.stderr)")
            #expect(r.stderr.contains(c.expected), "\(arguments): expected \(c.expected) in \(r.stderr)")
            for dump in ["NSCocoaErrorDomain", "Error Domain", "The operation could not be completed", "Code="] {
                #expect(!r.stderr.contains(dump), "\(arguments): \(r.stderr)")
            }
            #expect(!r.stderr.contains("unable to open database file") || r.stderr.contains("cannot open database \(dir.path)/"),
                    "\(arguments): \(r.stderr)")
        }
    }

    /// Issue 33, item 8: a configuration as a new operator writes it (a Windows editor's
    /// byte-order mark, `true`, `30s`, `64KiB`) is taken by `config check` and by `serve`, and
    /// `config check` shows every default as the value in effect, never "(unset)".
    @Test func configurationAsPeopleWriteItIsTakenAndEveryDefaultIsShown() throws {
        let file = dir.file("windows.ini")
        let text = "[server]\r\naccess_log = false\r\nhead_timeout = 30s\r\nmax_body = 64KiB\r\n[database]\r\nbusy_timeout_ms = 2s\r\n"
            + "[development]\r\ncredit_test_purchases = No\r\n"
        try Data([0xEF, 0xBB, 0xBF] + Array(text.utf8)).write(to: URL(fileURLWithPath: file))
        chmod(file, 0o600)
        let r = try CLIResult.run(["config", "check", "--config", file], in: dir.url)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        for line in [
            "[server] access_log = off \(file):2", "[server] head_timeout = 30 \(file):3", "[server] max_body = 65536 \(file):4",
            "[database] busy_timeout_ms = 2000 \(file):6", "[development] credit_test_purchases = off \(file):8",
            "[server] listen = 127.0.0.1:8080 default", "[server] body_timeout = 20 default",
            "[database] path = badge-data/badges.sqlite default: <data_dir>/badges.sqlite",
            "[issuer] key_file = badge-data/issuer-keys.json default: <data_dir>/issuer-keys.json",
            "[database] url = (not set) default: SQLite", "[rpc] front_token = (not set) default: off",
        ] {
            #expect(lines.contains(line), "missing \(line) in \(r.stdout)")
        }
        #expect(lines.contains { $0.hasPrefix("[server] workers = ") && $0.hasSuffix(" default: twice the CPUs, at least 4") }, "\(r.stdout)")
        #expect(!r.stdout.contains("(unset)"), "\(r.stdout)")

        // serve takes the same file
        let data = TemporaryDirectory("ops-windows")
        let service = try ServiceProcess(data: data, arguments: ["--config", file])
        #expect(try HTTP.request("GET", service.url + "/healthz").status == 200)
        #expect(service.stop() == 0)

        // UTF-16 (Notepad's "Unicode") is refused naming the file, by every command
        let utf16 = dir.file("utf16.ini")
        try Data([0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }).write(to: URL(fileURLWithPath: utf16))
        for command in [["config", "check"], ["serve"]] {
            let refused = try runBriefly(command + ["--config", utf16, "--data", dir.file("never-made")])
            #expect(refused.status == 1 && refused.stderr == "badge-service: cannot read configuration file \(utf16): "
                    + "UTF-16 or UTF-32 text (byte-order mark FF FE): save it as UTF-8\n", "\(command): \(refused.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("never-made")))
    }

    /// Issue 33, item 8: every file a key names that cannot be used is reported in one run, by
    /// `config check` and by `serve`, one line each; not only the first.
    @Test func everyBadKeyFileIsReportedAtOnce() throws {
        let garbage = try writeConfiguration("not a certificate\n", name: "garbage.pem")
        let packs = try writeConfiguration("[]", name: "packs.json")
        let missing = dir.file("missing")
        let file = try writeConfiguration("""
            [apple]
            bundle_id = chat.simplex.app
            root_certificates = \(missing).cer, \(garbage)
            [google]
            package_name = chat.simplex.app
            service_account = \(missing).json
            [wallet]
            packs_file = \(packs)
            """)
        let data = dir.file("never-made")
        for command in [["config", "check"], ["serve", "--listen", "127.0.0.1:0"]] {
            let r = try runBriefly(command + ["--config", file, "--data", data])
            #expect(r.status == 1, "\(command): \(r.stderr)")
            let lines = r.stderr.split(separator: "\n").map(String.init)
            #expect(lines.count == 4, "\(command): \(r.stderr)")
            #expect(Array(lines.prefix(3)) == [
                "badge-service: [apple] root_certificates: cannot read \(missing).cer: No such file or directory",
                "badge-service: [apple] root_certificates: \(garbage): neither a DER certificate nor PEM CERTIFICATE blocks",
                "badge-service: [google] service_account: cannot read \(missing).json: No such file or directory",
            ], "\(command): \(r.stderr)")
            #expect(lines.last?.hasPrefix("badge-service: [wallet] packs_file: \(packs): ") == true, "\(command): \(r.stderr)")
            // an empty [apple]: both keys it needs, in one run
            let empty = try runBriefly(command + ["--config", try writeConfiguration("[apple]\n", name: "apple.ini"), "--data", data])
            #expect(empty.status == 1 && empty.stderr.split(separator: "\n") == [
                "badge-service: [apple] bundle_id: required when [apple] is present (the app's bundle id, e.g. chat.simplex.app)",
                "badge-service: [apple] root_certificates: required when [apple] is present (Apple Root CA - G3, DER or PEM)",
            ], "\(command): \(empty.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: data))
    }
}
