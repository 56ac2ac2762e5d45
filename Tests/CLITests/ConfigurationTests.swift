import CLI
import Foundation
import Glibc
import HTTPServer
import Providers
import TestSupport
import Testing

@Suite struct INIFileTests {
    @Test func parsesSectionsKeysAndComments() throws {
        let ini = INIFile(parsing: """
            # comment
            ; also a comment
            [server]
            listen = 0.0.0.0:9000
              max_body=1024  \r

            [rpc]
            front_token = a=b=c
            """)
        #expect(ini.value("server", "listen") == "0.0.0.0:9000")
        #expect(ini.value("server", "max_body") == "1024")
        #expect(ini.value("rpc", "front_token") == "a=b=c")
        #expect(ini.value("rpc", "missing") == nil)
        #expect(ini.has("rpc") && !ini.has("apple"))
    }

    @Test(arguments: [
        ("key = value", 1), ("[server]\nlisten", 2), ("[server\n", 1), ("[]\n", 1), ("[a]\n[a]\n", 2),
        ("[a]\nk = 1\nk = 2\n", 3), ("[a]\n = 1\n", 2), ("[a]\nk = \"open\n", 2), ("[a]\nk = 'x\"\n", 2),
        ("[a]\nk = \"a\" b\n", 2), ("[a]\nk = \"a\"b\"\n", 2),
    ])
    func refusesMalformedLinesNamingTheFileAndLine(_ text: String, _ line: Int) {
        let ini = INIFile(parsing: text, path: "/etc/b.ini")
        #expect(ini.errors.count == 1, "\(ini.errors)")
        if case .syntax(.file("/etc/b.ini", let l), _) = ini.errors.first { #expect(l == line) } else { Issue.record("\(ini.errors)") }
        #expect(ini.errors.first?.description.hasPrefix("/etc/b.ini:\(line): ") == true)
    }

    @Test func everyMalformedLineIsReportedAndTheRestIsRead() {
        let ini = INIFile(parsing: "[a]\nnonsense\nk = 1\n[a]\nk = 2\n[b\nj = 3\n[c]\nm = \"4\n n = ' spaced ' \n", path: "x.ini")
        #expect(ini.errors.map(\.description) == [
            "x.ini:2: expected key = value, [section] or a # comment",
            "x.ini:4: duplicate section [a] (first at line 1)",
            "x.ini:5: duplicate key 'k' in [a] (first at line 3)",
            "x.ini:6: malformed section header [b",
            "x.ini:9: 'm': a value starting with \" must end with \"",
        ])
        #expect(ini.value("a", "k") == "1")
        #expect(ini.value("c", "n") == " spaced ")
    }

    /// A comment after a value is refused at its line rather than read into the value (a secret
    /// key ending in " # prod"); `#` and `;` inside a word or inside quotes stay the value's.
    @Test func aCommentAfterAValueIsRefusedNamingTheLine() {
        for text in ["secret_key = sk_test_x # comment", "secret_key = sk_test_x\t; comment", "secret_key = \"sk_test_x\" # comment",
                     "secret_key = 'a # b' ;c", "secret_key = a # b"] {
            let ini = INIFile(parsing: "# head\n[stripe]\n" + text + "\n", path: "/etc/b.ini")
            #expect(ini.errors.map(\.description) == [
                "/etc/b.ini:3: 'secret_key': a # or ; after a space is a comment after the value, which is not read as one: "
                    + "quote the value, or put the comment on a line of its own",
            ], "\(text)")
            #expect(ini.value("stripe", "secret_key") == nil, "\(text)")
        }
        let ini = INIFile(parsing: "[a]\nurl = https://x.test/#frag\nlist = a;b\nq = \"a # b\"\nr = ' ;x'\nt = #\n")
        #expect(ini.errors.isEmpty, "\(ini.errors)")
        #expect(ini.value("a", "url") == "https://x.test/#frag" && ini.value("a", "list") == "a;b")
        #expect(ini.value("a", "q") == "a # b" && ini.value("a", "r") == " ;x" && ini.value("a", "t") == "#")
    }

    @Test func quotedValuesLoseTheirQuotesAndKeepTheirInside() {
        let ini = INIFile(parsing: "[a]\nd = \"x # not a comment \"\ns = 'say \"hi\"'\ne = \"\"\nplain = a \"b\"\n")
        #expect(ini.errors.isEmpty)
        #expect(ini.value("a", "d") == "x # not a comment ")
        #expect(ini.value("a", "s") == "say \"hi\"")
        #expect(ini.value("a", "e") == "")
        #expect(ini.value("a", "plain") == "a \"b\"")
    }
}

@Suite struct ServiceConfigurationTests {
    let dir = TemporaryDirectory("config")

    func write(_ text: String) throws -> String {
        let path = dir.file("badge_service.ini")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
        return path
    }

    /// A secret file a group this process is not in, or others, may read is refused in one line
    /// naming it, its mode and the reader: the password file, and the configuration file when it
    /// sets a secret (only then).
    @Test func secretFilesOthersMayReadAreRefused() throws {
        let password = dir.file("shared-password")
        try "pw\n".write(toFile: password, atomically: true, encoding: .utf8)
        chmod(password, 0o640)
        let outsider = try #require(SecretFileAccessTests.groupOutside())
        #expect(chown(password, geteuid(), outsider.gid) == 0)
        let config = try ServiceConfiguration.load(file: nil, environment: [
            "BADGE_SERVICE_DATABASE_URL": "host=db", "BADGE_SERVICE_DATABASE_PASSWORD_FILE": password,
        ])
        #expect { try config.postgresSettings() } throws: {
            ($0 as? CommandFailure)?.message == "[database] password_file \(password) has mode 0640: readable by group \(outsider.name) (this service is not in it); chmod 600 it"
        }
        chmod(password, 0o600)
        #expect(try config.postgresSettings()?.password == "pw")

        let file = try write("[rpc]\nfront_token = \(String(repeating: "t", count: 40))\n")
        chmod(file, 0o604)
        #expect { try ServiceConfiguration.load(file: file, environment: [:]) } throws: {
            "\($0)" == "configuration file \(file) has mode 0604 and sets [rpc] front_token: readable by others; chmod 600 it, or set the secret in the environment"
        }
        chmod(file, 0o600)
        _ = try ServiceConfiguration.load(file: file, environment: [:])
        // no secret in it: any mode (a root-owned file a service user reads)
        let plain = try write("[server]\nworkers = 2\n")
        chmod(plain, 0o644)
        _ = try ServiceConfiguration.load(file: plain, environment: ["BADGE_SERVICE_RPC_FRONT_TOKEN": String(repeating: "t", count: 40)])
    }

    /// `[database] url` selects PostgreSQL; the password comes from a file or the environment,
    /// never from the URL, and is never shown or echoed.
    @Test func postgresKeysAreTypedAndThePasswordIsNeverShown() throws {
        #expect(try ServiceConfiguration.load(file: nil, environment: [:]).postgresSettings() == nil)
        let passwordFile = dir.file("db-password")
        try "s3cret-pw\nignored\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        chmod(passwordFile, 0o600)
        let path = try write("""
            [database]
            url = postgresql://badges@db.internal:6543/badges
            password_file = \(passwordFile)
            pool_size = 3
            connect_timeout = 7
            statement_timeout_ms = 250
            """)
        let fromFile = try #require(try ServiceConfiguration.load(file: path, environment: [:]).postgresSettings())
        #expect(fromFile.password == "s3cret-pw" && fromFile.poolSize == 3 && fromFile.connectTimeoutSeconds == 7
                && fromFile.statementTimeoutMilliseconds == 250)
        #expect(fromFile.redacted == "postgresql://badges@db.internal:6543/badges")

        let fromEnvironment = try ServiceConfiguration.load(file: nil, environment: [
            "BADGE_SERVICE_DATABASE_URL": "host=db.internal dbname=badges", "BADGE_SERVICE_DATABASE_PASSWORD": "env-pw",
        ])
        #expect(try fromEnvironment.postgresSettings()?.password == "env-pw")
        let shown = fromEnvironment.effectiveValues.map { "\($0.key) = \($0.value ?? "(unset)")" }
        #expect(shown.contains("[database] password = (set, hidden)") && shown.contains("[database] url = host=db.internal dbname=badges"),
                "\(shown)")

        // A URL holding a password is refused, naming the key and not the value.
        do {
            _ = try ServiceConfiguration.load(file: nil, environment: ["BADGE_SERVICE_DATABASE_URL": "postgresql://u:leaked@h/d"])
            Issue.record("a URL with a password was accepted")
        } catch {
            #expect(!error.description.contains("leaked"))
            #expect(error.description.contains("BADGE_SERVICE_DATABASE_URL") && error.description.contains("without a password"), "\(error)")
        }
        // An empty URL would be libpq's defaults (a local socket, the user's name): refused, in
        // the environment and in the file alike, naming the key.
        let emptyURL = dir.file("empty-url.ini")
        try "[database]\nurl =\n".write(toFile: emptyURL, atomically: true, encoding: .utf8)
        for (file, environment) in [(nil, ["BADGE_SERVICE_DATABASE_URL": ""]), (emptyURL, [:])] {
            do {
                let config = try ServiceConfiguration.load(file: file, environment: environment)
                Issue.record("an empty url was accepted: \(String(describing: try? config.postgresSettings()))")
            } catch {
                #expect(error.description.split(separator: "\n").count == 1, "\(error)")
                #expect(error.description.contains(file == nil ? "BADGE_SERVICE_DATABASE_URL" : "[database] url")
                        && error.description.contains("it is empty"), "\(error)")
            }
        }
        #expect(throws: ConfigurationErrors.self) {
            try ServiceConfiguration.load(file: nil, environment: ["BADGE_SERVICE_DATABASE_POOL_SIZE": "0"])
        }
        // Both password keys, or an unreadable file: one line naming the key.
        let both = try ServiceConfiguration.load(file: path, environment: ["BADGE_SERVICE_DATABASE_PASSWORD": "env-pw"])
        #expect { try both.postgresSettings() } throws: {
            ($0 as? CommandFailure)?.message == "[database] password and password_file are both set: keep one"
        }
        let missing = try ServiceConfiguration.load(file: nil, environment: [
            "BADGE_SERVICE_DATABASE_URL": "host=db", "BADGE_SERVICE_DATABASE_PASSWORD_FILE": dir.file("nope"),
        ])
        #expect { try missing.postgresSettings() } throws: {
            ($0 as? CommandFailure)?.message == "cannot read [database] password_file \(dir.file("nope")): No such file or directory"
        }
    }

    @Test func defaultsAreTheEmbeddedDeployment() throws {
        let c = try ServiceConfiguration.load(file: nil, environment: [:])
        #expect(c.listenHost == "127.0.0.1" && c.listenPort == 8080)
        #expect(c.databasePath == "badge-data/badges.sqlite")
        #expect(c.issuerKeyFile == "badge-data/issuer-keys.json")
        // The deployed limits are the ones HTTPServer's tests exercise.
        #expect(c.limits == HTTPLimits() && c.timeouts == HTTPTimeouts())
        #expect(c.maxConnections == HTTPServerConfiguration.defaultMaxConnections && c.signatureWindowSeconds == 300)
        #expect(c.workers == max(4, 2 * HTTPServerConfiguration.onlineCPUs))
        #expect(c.apple == nil && c.google == nil && c.payment(StripeSettings.self) == nil && c.payment(BTCPaySettings.self) == nil)
        #expect(!c.creditTestPurchases && !c.askStoreEveryRequest)
        #expect(c.frontToken == nil)
        #expect(c.sources.isEmpty)
    }

    @Test func fileThenEnvironment() throws {
        let path = try write("""
            [server]
            listen = 127.0.0.1:9090
            signature_window = 60
            data_dir = /var/lib/badges
            access_log = off
            [apple]
            bundle_id = chat.simplex.app
            [development]
            credit_test_purchases = on
            """)
        let c = try ServiceConfiguration.load(file: path, environment: [
            "BADGE_SERVICE_SERVER_LISTEN": "127.0.0.1:7070",
            "BADGE_SERVICE_RPC_FRONT_TOKEN": String(repeating: "t", count: 40),
            "BADGE_SERVICE_GOOGLE_PACKAGE_NAME": "chat.simplex.app",
        ])
        #expect(c.listenPort == 7070)
        #expect(c.signatureWindowSeconds == 60)
        #expect(c.databasePath == "/var/lib/badges/badges.sqlite")
        #expect(!c.accessLog)
        #expect(c.apple?.bundleID == "chat.simplex.app" && c.apple?.apiURL == nil)
        #expect(c.google?.packageName == "chat.simplex.app")
        #expect(c.payment(StripeSettings.self) == nil && c.payment(BTCPaySettings.self) == nil)
        #expect(c.configuredProviders == ["apple", "google"])
        #expect(c.frontToken?.count == 40)
        #expect(c.creditTestPurchases)
    }

    @Test func eachLimitKeySetsItsOwnLimit() throws {
        let path = try write("""
            [server]
            max_request_target = 1024
            max_field_line = 4096
            max_head = 32768
            max_fields = 50
            max_body = 2048
            head_timeout = 5
            idle_timeout = 30
            workers = 3
            """)
        let c = try ServiceConfiguration.load(file: path, environment: [:])
        #expect(c.limits == HTTPLimits(maxTargetLength: 1024, maxFieldLineLength: 4096, maxHeaderSectionSize: 32768,
                                       maxHeaderFields: 50, maxBodySize: 2048))
        #expect(c.timeouts == HTTPTimeouts(requestHead: .seconds(5), idle: .seconds(30)))
        #expect(c.workers == 3)
    }

    @Test func everyStoreKeyIsTypedAndSettableFromTheEnvironment() throws {
        let c = try ServiceConfiguration.load(file: nil, environment: [
            "BADGE_SERVICE_APPLE_PRIVATE_KEY": "/k.p8", "BADGE_SERVICE_APPLE_ROOT_CERTIFICATES": "/a.cer, /b.pem", "BADGE_SERVICE_GOOGLE_TOKEN_URL": "http://127.0.0.1:1/t",
            "BADGE_SERVICE_STRIPE_WEBHOOK_SECRET": "whsec_x", "BADGE_SERVICE_BTCPAY_STORE_ID": "store",
        ])
        #expect(c.apple?.privateKeyFile == "/k.p8" && c.apple?.rootCertificateFiles == ["/a.cer", "/b.pem"])
        #expect(c.google?.tokenURL == "http://127.0.0.1:1/t")
        #expect(c.payment(StripeSettings.self)?.webhookSecret == "whsec_x")
        #expect(c.payment(BTCPaySettings.self)?.storeID == "store")
        #expect(c.configuredProviders == ["apple", "google", "stripe", "btcpay"])
    }

    @Test func googleKeysAreTypedWithDefaults() throws {
        let c = try ServiceConfiguration.load(file: try write(
            "[google]\npackage_name = chat.simplex.app\nservice_account = /etc/badge/play.json\ntimeout = 5\nmax_response_bytes = 65536\n"),
            environment: [:])
        #expect(c.google?.packageName == "chat.simplex.app")
        #expect(c.google?.serviceAccountFile == "/etc/badge/play.json")
        #expect(c.google?.timeout == 5 && c.google?.maxResponseBytes == 65536)
        let defaults = try ServiceConfiguration.load(file: try write("[google]\n"), environment: [:])
        #expect(defaults.google?.timeout == 10 && defaults.google?.maxResponseBytes == 1 << 20)
        for bad in ["package_name = chat", "package_name = chat..app", "package_name = 1chat.app", "package_name = chat.simplex/app",
                    "timeout = 0", "timeout = 121", "max_response_bytes = 10", "api_url = ftp://x", "token_url = nowhere"] {
            #expect(throws: ConfigurationErrors.self, "\(bad)") {
                try ServiceConfiguration.load(file: try write("[google]\n\(bad)\n"), environment: [:])
            }
        }
    }

    /// serve and config check refuse a payment section that lacks a key it needs, naming the
    /// section's line; a complete one, and absent ones, pass.
    @Test func anIncompletePaymentSectionIsNamedKeyByKey() throws {
        let path = try write("[stripe]\nsecret_key = sk_test_x\n[btcpay]\nurl = https://pay.test\napi_key = k\nstore_id = s\n")
        let c = try ServiceConfiguration.load(file: path, environment: [:])
        #expect(c.incompletePaymentSections().map(\.description) == [
            "\(path):1: [stripe] webhook_secret is required when [stripe] is present",
            "\(path):1: [stripe] success_url is required when [stripe] is present",
            "\(path):1: [stripe] cancel_url is required when [stripe] is present",
            "\(path):3: [btcpay] webhook_secret is required when [btcpay] is present",
        ])
        let complete = try ServiceConfiguration.load(file: path, environment: [
            "BADGE_SERVICE_STRIPE_WEBHOOK_SECRET": "whsec_x", "BADGE_SERVICE_STRIPE_SUCCESS_URL": "https://a.test/ok",
            "BADGE_SERVICE_STRIPE_CANCEL_URL": "https://a.test/no", "BADGE_SERVICE_BTCPAY_WEBHOOK_SECRET": "s",
            "BADGE_SERVICE_STRIPE_TIMEOUT": "3", "BADGE_SERVICE_BTCPAY_MAX_RESPONSE_BYTES": "4096",
        ])
        #expect(complete.incompletePaymentSections().isEmpty)
        #expect(complete.payment(StripeSettings.self)?.timeout == 3 && complete.payment(BTCPaySettings.self)?.maxResponseBytes == 4096 && complete.payment(BTCPaySettings.self)?.timeout == 10)
        #expect(complete.payment(BTCPaySettings.self)?.speedPolicy == "MediumSpeed")
        // The confirmations BTCPay waits for: never none.
        let slow = try ServiceConfiguration.load(file: try write("[btcpay]\nspeed_policy = LowSpeed\n"), environment: [:])
        #expect(slow.payment(BTCPaySettings.self)?.speedPolicy == "LowSpeed")
        for value in ["HighSpeed", "fast", ""] {
            let path = try write("[btcpay]\nspeed_policy = \(value)\n")
            do { _ = try ServiceConfiguration.load(file: path, environment: [:]); Issue.record("\(value) accepted") } catch {
                #expect("\(error)".contains("\(path):2") && "\(error)".contains("speed_policy"), "\(error)")
                if value == "HighSpeed" { #expect("\(error)".contains("no confirmation"), "\(error)") }
            }
        }
        #expect(try ServiceConfiguration.load(file: nil, environment: [:]).incompletePaymentSections().isEmpty)
        #expect(throws: ConfigurationErrors.self) {
            try ServiceConfiguration.load(file: nil, environment: ["BADGE_SERVICE_STRIPE_TIMEOUT": "0"])
        }
    }

    /// A present `[google]` needs its package and the service account's key file; serve reads the
    /// file at start and names the key and the path when it cannot use it.
    @Test func anIncompleteGoogleSectionIsNamedKeyByKeyAndItsKeyFileIsChecked() throws {
        let path = try write("[google]\napi_url = http://127.0.0.1:9\n")
        let c = try ServiceConfiguration.load(file: path, environment: [:])
        #expect(c.incompletePaymentSections().map(\.description) == [
            "\(path):1: [google] package_name is required when [google] is present",
            "\(path):1: [google] service_account is required when [google] is present",
        ])
        let missing = try ServiceConfiguration.load(file: path, environment: [
            "BADGE_SERVICE_GOOGLE_PACKAGE_NAME": "chat.simplex.app", "BADGE_SERVICE_GOOGLE_SERVICE_ACCOUNT": "/nonexistent/play.json",
        ])
        #expect(missing.incompletePaymentSections().isEmpty)
        #expect(throws: CommandFailure.self) { try missing.google!.serviceAccountKey() }
        do { _ = try missing.google!.serviceAccountKey() } catch {
            #expect("\(error)".hasPrefix("[google] service_account: ") && "\(error)".contains("/nonexistent/play.json"))
            #expect(!"\(error)".contains("\n"))
        }
        let notAKey = try write(#"{"type":"service_account","client_email":"a@b.test","private_key":"not a pem"}"#)
        var broken = missing
        broken.google!.serviceAccountFile = notAKey
        do { _ = try broken.google!.serviceAccountKey(); Issue.record("a key file without a key was accepted") } catch {
            #expect("\(error)" == "[google] service_account: \(notAKey): private_key is not a PEM private key")
        }
        // readable by others: refused before it is read, naming the file and its mode
        chmod(notAKey, 0o644)
        #expect { try broken.google!.serviceAccountKey() } throws: {
            ($0 as? CommandFailure)?.message == "[google] service_account \(notAKey) has mode 0644: readable by others; chmod 600 it"
        }
    }

    /// `[google]`'s push keys (POST /webhooks/google) go together: a part of them is one line per
    /// missing key; none of them (the route answers 501) and both pass; the email and URL are typed.
    @Test func thePlayPushKeysAreTypedAndGoTogether() throws {
        let base = "[google]\npackage_name = chat.simplex.app\nservice_account = /p.json\n"
        let path = try write(base + "push_audience = https://badges.example/webhooks/google\n")
        #expect(try ServiceConfiguration.load(file: path, environment: [:]).incompletePaymentSections().map(\.description) == [
            "\(path):1: [google] push_service_account is required with push_audience (the Pub/Sub push authentication)",
        ])
        let whole = try ServiceConfiguration.load(file: path, environment: [
            "BADGE_SERVICE_GOOGLE_PUSH_SERVICE_ACCOUNT": "pubsub-push@badge-test.iam.gserviceaccount.com",
            "BADGE_SERVICE_GOOGLE_PUSH_JWKS_URL": "http://127.0.0.1:9/certs",
        ])
        #expect(whole.incompletePaymentSections().isEmpty)
        #expect(whole.google?.pushServiceAccount == "pubsub-push@badge-test.iam.gserviceaccount.com")
        #expect(whole.google?.pushJWKSURL == "http://127.0.0.1:9/certs")
        let push = try #require(try whole.google?.pushAuthenticator())
        #expect(push.audience == "https://badges.example/webhooks/google" && push.keys.url == "http://127.0.0.1:9/certs")
        // (write() reuses one file: each configuration is loaded before the next is written.)
        let jwksOnly = try write(base + "push_jwks_url = http://127.0.0.1:9/certs\n")
        #expect(try ServiceConfiguration.load(file: jwksOnly, environment: [:]).incompletePaymentSections().count == 2)
        #expect(try ServiceConfiguration.load(file: try write(base), environment: [:]).google?.pushAuthenticator() == nil)
        for bad in ["push_service_account = nobody", "push_service_account = a b@c.d", "push_jwks_url = certs.example"] {
            #expect(throws: ConfigurationErrors.self, "\(bad)") {
                try ServiceConfiguration.load(file: try write(base + bad + "\n"), environment: [:])
            }
        }
    }

    /// `[apple]`'s App Store Server API key works whole or not at all: a part of it is one line
    /// per missing key; none of it (subscriptions not configured) and all of it pass.
    @Test func aPartOfTheAppStoreServerAPIKeyIsNamedKeyByKey() throws {
        let path = try write("[apple]\nbundle_id = chat.simplex.app\nroot_certificates = /r.cer\nkey_id = ABCDE12345\n")
        #expect(try ServiceConfiguration.load(file: path, environment: [:]).incompletePaymentSections().map(\.description) == [
            "\(path):1: [apple] issuer_id is required with key_id and private_key (the App Store Server API key)",
            "\(path):1: [apple] private_key is required with issuer_id and key_id (the App Store Server API key)",
        ])
        let whole = try ServiceConfiguration.load(file: path, environment: [
            "BADGE_SERVICE_APPLE_ISSUER_ID": "57246542-96fe-1a63-e053-0824d011072a", "BADGE_SERVICE_APPLE_PRIVATE_KEY": "/k.p8",
        ])
        #expect(whole.incompletePaymentSections().isEmpty)
        let none = try write("[apple]\nbundle_id = chat.simplex.app\nroot_certificates = /r.cer\n")
        #expect(try ServiceConfiguration.load(file: none, environment: [:]).incompletePaymentSections().isEmpty)
    }

    @Test func aPresentStoreSectionConfiguresItsProvider() throws {
        let c = try ServiceConfiguration.load(file: try write("[btcpay]\n"), environment: [:])
        #expect(c.payment(BTCPaySettings.self) == BTCPaySettings() && c.configuredProviders == ["btcpay"])
    }

    @Test func unknownKeysSectionsAndVariablesAreAllReportedAtOnce() throws {
        let path = try write("[server]\nlisten = 127.0.0.1:1\nlistn = 3\n[mystery]\na = b\n[apple]\nbundle = x\nmax_body = 1\n[sever]\n")
        #expect {
            try ServiceConfiguration.load(file: path, environment: [
                "BADGE_SERVICE_SERVER_LISTN": "x", "BADGE_SERVICE_SERVER": "http://[::1]:1", "OTHER": "y",
                "BADGE_SERVICE_SERVER_MAX_BODY": "lots",
            ])
        } throws: { error in
            let lines = (error as? ConfigurationErrors)?.errors.map(\.description) ?? []
            return lines == [
                "\(path):3: unknown key 'listn' in [server] (did you mean 'listen'?)",
                "\(path):4: unknown section [mystery]",
                "\(path):7: unknown key 'bundle' in [apple]",
                "\(path):8: unknown key 'max_body' in [apple]",
                "\(path):9: unknown section [sever] (did you mean [server]?)",
                "BADGE_SERVICE_SERVER_LISTN: unknown configuration variable (did you mean BADGE_SERVICE_SERVER_LISTEN?)",
                "BADGE_SERVICE_SERVER_MAX_BODY=lots: expected bytes in 1...16777216 (1 to 16MiB): a bare number of bytes, or a number with KiB, MiB or GiB (64KiB, 16MiB)",
            ]
        }
    }

    @Test func everyValueRemembersWhereItCameFrom() throws {
        let path = try write("[server]\n\nsignature_window = \"60\"\n[stripe]\n")
        var c = try ServiceConfiguration.load(file: path, environment: ["BADGE_SERVICE_RPC_FRONT_TOKEN": String(repeating: "t", count: 40)])
        try c.setDataDirectory("/srv/d")
        let values = Dictionary(uniqueKeysWithValues: c.effectiveValues.map { ($0.key, $0) })
        #expect(values["[server] signature_window"] == .init(key: "[server] signature_window", value: "60", source: .file(path: path, line: 3),
                                                             defaultValue: .value("300")))
        #expect(values["[server] listen"]?.value == "127.0.0.1:8080" && values["[server] listen"]?.source == .builtIn)
        #expect(values["[server] data_dir"]?.source == .commandLine(flag: "--data"))
        #expect(values["[database] path"]?.value == "/srv/d/badges.sqlite")
        #expect(values["[rpc] front_token"]?.value == "(set, hidden)")
        #expect(values["[rpc] front_token"]?.source == .environment(variable: "BADGE_SERVICE_RPC_FRONT_TOKEN"))
        #expect(values["[stripe] secret_key"]?.value == nil)
        #expect(c.presence(ofSection: "stripe") == .file(path: path, line: 4) && c.presence(ofSection: "apple") == nil)
        // every key is listed once, and each has its own environment variable
        #expect(values.count == ServiceConfiguration.keys.count)
        #expect(Set(ServiceConfiguration.keys.map(\.environmentVariable)).count == ServiceConfiguration.keys.count)
    }

    /// Until a store's verifier exists its section changes nothing, so the operator is told so
    /// at start, one line per section, whether it came from the file or the environment.
    @Test func storeSectionsWithoutADeployedVerifierAreWarnedAboutAtStart() throws {
        let path = try write("[google]\npackage_name = chat.simplex.app\n[apple]\nbundle_id = chat.simplex.app\n")
        let c = try ServiceConfiguration.load(file: path, environment: ["BADGE_SERVICE_STRIPE_SECRET_KEY": "sk_test"])
        #expect(c.unusedSectionWarnings(deployedVerifiers: []) == [
            "[apple] is ignored: this version deploys no apple verifier",
            "[google] is ignored: this version deploys no google verifier",
            "[stripe] is ignored: this version deploys no stripe verifier",
        ])
        #expect(c.unusedSectionWarnings(deployedVerifiers: ["apple", "google", "stripe"]).isEmpty)
        #expect(try ServiceConfiguration.load(file: nil, environment: [:]).unusedSectionWarnings(deployedVerifiers: []).isEmpty)
    }

    @Test(arguments: [
        "[server]\nlisten = nowhere\n", "[server]\nmax_body = -1\n", "[server]\naccess_log = maybe\n",
        "[server]\nhead_timeout = 10 seconds\n", "[rpc]\nfront_token = short\n", "[server]\nlisten = :80\n",
        "[server]\nlisten = 127.0.0.1:70000\n",
    ])
    func refusesBadValues(_ text: String) throws {
        let path = try write(text)
        #expect(throws: ConfigurationErrors.self) { try ServiceConfiguration.load(file: path, environment: [:]) }
    }

    @Test func badEnvironmentValueIsAnError() {
        #expect(throws: ConfigurationErrors.self) {
            try ServiceConfiguration.load(file: nil, environment: ["BADGE_SERVICE_SERVER_MAX_FIELDS": "lots"])
        }
    }

    /// Issue 36's fuzzing: a lone CR in a section header came back inside the error, so the
    /// "one line" broke (a terminal returns to the line's start). Every quoted control character
    /// is shown escaped, from the file and from the environment alike.
    @Test func errorsQuotingControlCharactersStayOneLine() throws {
        let path = try write("[serv\rer]\n[server]\nlisten = a\u{1B}[2Jb\n")
        do throws(ConfigurationErrors) {
            _ = try ServiceConfiguration.load(file: path, environment: ["BADGE_SERVICE_SERVER_MAX_FIELDS": "1\n2",
                                                                        "BADGE_SERVICE_SERVER_WORKERS": "3\u{2028}"])
            Issue.record("loaded")
        } catch {
            #expect(error.errors.count == 4)
            for line in error.errors.map(\.description) {
                #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{2028}" }, "\(line.debugDescription)")
            }
            #expect(error.errors[0].description.hasPrefix("\(path):1: unknown section [serv\\rer]"))
            #expect(error.errors[1].description.contains("a\\u{1B}[2Jb"))
            #expect(error.description.split(separator: "\n").count == 4)
        }
    }

    @Test func anUnreadableFileIsOneLineNamingThePathAndTheReason() {
        let missing = dir.file("nope.ini")
        #expect(throws: ConfigurationErrors([.unreadable(path: missing, reason: "No such file or directory")])) {
            try ServiceConfiguration.load(file: missing, environment: [:])
        }
        #expect(throws: ConfigurationErrors([.unreadable(path: dir.path, reason: "is a directory")])) {
            try ServiceConfiguration.load(file: dir.path, environment: [:])
        }
    }

    @Test func frontTokenValueIsNeverEchoed() throws {
        let secret = "s3cr3t"
        let path = try write("[rpc]\nfront_token = \(secret)\n")
        do {
            _ = try ServiceConfiguration.load(file: path, environment: [:])
            Issue.record("short token accepted")
        } catch {
            #expect(!error.description.contains(secret))
        }
    }

    @Test func ipv6Listen() throws {
        var c = ServiceConfiguration()
        try c.setListen("[::1]:8081")
        #expect(c.listenHost == "::1" && c.listenPort == 8081)
    }

    /// The host is an address literal or a host name by syntax alone: no resolver is asked.
    @Test func listenHostsAreAddressesOrHostNames() {
        for good in ["0.0.0.0", "127.0.0.1", "::", "[::1]", "localhost", "badges.example.org", "host-1"] {
            var c = ServiceConfiguration()
            #expect(throws: Never.self, "\(good)") { try c.setListen(good + ":8080") }
        }
        for bad in ["1.2.3.4.5", "127.0.0.1.", "256.0.0.1", "bad_host", "-x", "a..b", "[::1", "::g"] {
            var c = ServiceConfiguration()
            #expect(throws: ConfigurationError.self, "\(bad)") { try c.setListen(bad + ":8080") }
        }
    }
}

/// Issue 33, item 8: configuration as people write it. Flags, durations and sizes in their
/// usual spellings; key shapes known for certain refused when read; a byte-order mark.
@Suite struct ConfigurationSpellingTests {
    let dir = TemporaryDirectory("config-spelling")
    var path: String { dir.file("badge-service.ini") }

    func load(_ text: String, environment: [String: String] = [:]) throws -> ServiceConfiguration {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
        return try ServiceConfiguration.load(file: path, environment: environment)
    }

    /// The lines the configuration is refused with (none: it was accepted).
    func refusal(_ text: String, environment: [String: String] = [:]) -> [String] {
        do { _ = try load(text, environment: environment); return [] } catch let error as ConfigurationErrors {
            return error.errors.map(\.description)
        } catch { return ["\(error)"] }
    }

    @Test func flagsTakeTheEightSpellingsInAnyCase() throws {
        for (text, on) in [("on", true), ("off", false), ("true", true), ("false", false), ("yes", true), ("no", false),
                           ("1", true), ("0", false), ("TRUE", true), ("Off", false), ("Yes", true), ("nO", false)] {
            let c = try load("[server]\naccess_log = \(text)\n[development]\ncredit_test_purchases = \(text)\n")
            #expect(c.accessLog == on && c.creditTestPurchases == on, "\(text)")
            let e = try ServiceConfiguration.load(file: nil, environment: ["BADGE_SERVICE_WALLET_ALLOW_DEV_COIN_GRANTS": text])
            #expect(e.allowDevCoinGrants == on, "\(text)")
            // shown as on or off whatever the spelling
            #expect(c.effectiveValues.first { $0.key == "[server] access_log" }?.value == (on ? "on" : "off"))
        }
        for bad in ["maybe", "enabled", "2", "o n", "\"\""] {
            let shown = bad == "\"\"" ? "(empty)" : bad
            #expect(refusal("[server]\naccess_log = \(bad)\n")
                    == ["\(path):2: [server] access_log = \(shown): expected on or off (or true/false, yes/no, 1/0)"], "\(bad)")
        }
    }

    @Test func durationsTakeAUnitAndABareNumberKeepsTheKeysOwn() throws {
        let c = try load("""
            [server]
            head_timeout = 30s
            body_timeout = 2m
            idle_timeout = 1h
            signature_window = 120
            [limits]
            failure_window = 5 m
            failure_block = 90s
            [database]
            busy_timeout_ms = 2s
            statement_timeout_ms = 1500ms
            connect_timeout = 7000ms
            [stripe]
            timeout = 1m
            """)
        #expect(c.timeouts.requestHead == .seconds(30) && c.timeouts.requestBody == .seconds(120) && c.timeouts.idle == .seconds(3600))
        #expect(c.signatureWindowSeconds == 120 && c.failureWindowSeconds == 300 && c.failureBlockSeconds == 90)
        #expect(c.databaseBusyTimeoutMilliseconds == 2000 && c.databaseStatementTimeoutMilliseconds == 1500)
        #expect(c.databaseConnectTimeoutSeconds == 7 && c.payment(StripeSettings.self)?.timeout == 60)
        // config check shows each as a bare number in the key's unit
        let shown = Dictionary(uniqueKeysWithValues: c.effectiveValues.map { ($0.key, $0.value) })
        #expect(shown["[server] body_timeout"] == "120" && shown["[database] busy_timeout_ms"] == "2000" && shown["[stripe] timeout"] == "60")
        // a bare number is the key's documented unit: milliseconds for the *_ms keys
        #expect(try load("[database]\nbusy_timeout_ms = 250\n").databaseBusyTimeoutMilliseconds == 250)
        #expect(try ServiceConfiguration.load(file: nil, environment: ["BADGE_SERVICE_GOOGLE_TIMEOUT": "15s"]).google?.timeout == 15)

        let forms = "a bare number of seconds, or a number with ms, s, m or h (500ms, 30s, 2m, 1h)"
        let range = "seconds in 1...3600 (1s to 1h): " + forms
        for (value, expected) in [
            ("1500ms", "whole seconds, which 1500ms is not (nothing is rounded); " + range),
            ("-5", range), ("-5s", range), ("1.5s", range), ("1d", range), ("30 seconds", range), ("30S", range), ("2h", range),
            ("0s", range), ("1m30s", range), ("99999999999999999999", range), ("9223372036854775807h", range),
        ] {
            #expect(refusal("[server]\nhead_timeout = \(value)\n") == ["\(path):2: [server] head_timeout = \(value): expected \(expected)"],
                    "\(value)")
        }
        #expect(refusal("", environment: ["BADGE_SERVICE_DATABASE_STATEMENT_TIMEOUT_MS": "11m"]) == [
            "BADGE_SERVICE_DATABASE_STATEMENT_TIMEOUT_MS=11m: expected milliseconds in 1...600000 (1ms to 10m): "
                + "a bare number of milliseconds, or a number with ms, s, m or h (500ms, 30s, 2m, 1h)",
        ])
    }

    @Test func sizesTakeBinaryUnitsAndRefuseDecimalOnesWithAHint() throws {
        let c = try load("""
            [server]
            max_body = 64KiB
            max_head = 32 kib
            max_request_target = 1024
            [limits]
            max_buffered_request_bytes = 1GiB
            [google]
            max_response_bytes = 2MiB
            """)
        #expect(c.limits.maxBodySize == 65536 && c.limits.maxHeaderSectionSize == 32768 && c.limits.maxTargetLength == 1024)
        #expect(c.maxBufferedRequestBytes == 1 << 30 && c.google?.maxResponseBytes == 2 << 20)
        let range = "bytes in 1...16777216 (1 to 16MiB): a bare number of bytes, or a number with KiB, MiB or GiB (64KiB, 16MiB)"
        for (value, hint) in [("64KB", "64KiB"), ("16MB", "16MiB"), ("1G", "1GiB"), ("64k", "64KiB"), ("8 mb", "8MiB")] {
            let suffix = String(value.drop { $0.isNumber || $0 == " " })
            #expect(refusal("[server]\nmax_body = \(value)\n")
                    == ["\(path):2: [server] max_body = \(value): expected \(range); did you mean \(hint)? (\(suffix) could mean 1000 or 1024)"],
                    "\(value)")
        }
        for value in ["17MiB", "1TiB", "64 bytes", "1.5MiB", "-1KiB", "0", "99999999999GiB"] {
            #expect(refusal("[server]\nmax_body = \(value)\n") == ["\(path):2: [server] max_body = \(value): expected \(range)"], "\(value)")
        }
    }

    /// A Stripe publishable key or a webhook secret without `whsec_` fails when read, not as
    /// `internal` at the first invoice; the value is never echoed.
    @Test func keyShapesKnownForCertainAreRefusedWhenReadWithoutEchoingTheValue() throws {
        let publishable = "pk_live_51HpublishableNotSecret"
        #expect(refusal("[stripe]\nsecret_key = \(publishable)\n") == [
            "\(path):2: [stripe] secret_key = (hidden): expected a Stripe secret key (sk_…) or restricted key (rk_…) from the "
                + "Dashboard's API keys page; this is a publishable key (pk_…), which cannot create Checkout Sessions",
        ])
        #expect(refusal("", environment: ["BADGE_SERVICE_STRIPE_SECRET_KEY": publishable]).first?
            .hasPrefix("BADGE_SERVICE_STRIPE_SECRET_KEY=(hidden): expected a Stripe secret key (sk_…) or restricted key (rk_…)") == true)
        let webhook = "my-endpoint-secret-123"
        #expect(refusal("[stripe]\nwebhook_secret = \(webhook)\n") == [
            "\(path):2: [stripe] webhook_secret = (hidden): expected the webhook endpoint's signing secret, whsec_… whole, from the Dashboard's webhook page",
        ])
        #expect(refusal("[stripe]\nwebhook_secret = sk_test_swapped\n").first?.hasSuffix("this is an API key, which belongs in secret_key") == true)
        #expect(refusal("[stripe]\nsecret_key = whsec_swapped\n").first?.hasSuffix("which belongs in webhook_secret") == true)
        let leaked = refusal("[stripe]\npublishable_key = sk_live_pasted_here\n")
        #expect(leaked == ["\(path):2: [stripe] publishable_key = (hidden): expected a Stripe publishable key (pk_…); this is a secret key, which belongs in secret_key"])
        for line in [leaked, refusal("[stripe]\nsecret_key = \(publishable)\n")].flatMap({ $0 }) {
            #expect(!line.contains("sk_live_pasted_here") && !line.contains(publishable))
        }
        let good = try load("[stripe]\nsecret_key = rk_live_x\nwebhook_secret = whsec_x\npublishable_key = pk_test_x\n"
                            + "success_url = https://shop.test/ok?session_id={CHECKOUT_SESSION_ID}\n")
        #expect(good.payment(StripeSettings.self)?.secretKey == "rk_live_x" && good.payment(StripeSettings.self)?.successURL == "https://shop.test/ok?session_id={CHECKOUT_SESSION_ID}")
        #expect(try load("[stripe]\nsecret_key = sk_test_x\n").payment(StripeSettings.self)?.secretKey == "sk_test_x")

        // [btcpay] url: the server's base URL
        for url in ["https://btcpay.example.com", "https://btcpay.example.com/", "http://127.0.0.1:23000", "https://example.com/btcpay",
                    "http://[::1]:8080/", "HTTPS://BTCPAY.EXAMPLE.COM"] {
            #expect(try load("[btcpay]\nurl = \(url)\n").payment(BTCPaySettings.self)?.url == url, "\(url)")
        }
        for url in ["btcpay.example.com", "https://", "https:///stores", "https://btcpay.example.com/api/v1", "https://btcpay.example.com/api/v1/",
                    "https://btcpay.example.com/api/v1/stores/abc", "https://btcpay.example.com?store=1", "https://btcpay.example.com/#x",
                    "https://btc pay.example.com", "https://btcpay.example.com:0", "https://btcpay.example.com:99999", "https://[::1", "ftp://btcpay.example.com"] {
            #expect(refusal("[btcpay]\nurl = \(url)\n") == [
                "\(path):2: [btcpay] url = \(url): expected the server's base URL: an absolute http:// or https:// URL with a host, "
                    + "e.g. https://pay.example.com, without a query or fragment, and without /api/v1 (the service appends it)",
            ], "\(url)")
        }
        // [apple]: the key id and the issuer id, as App Store Connect shows them
        let apple = try load("[apple]\nkey_id = 2X9R4HXF34\nissuer_id = 57246542-96FE-1a63-e053-0824d011072a\n")
        #expect(apple.apple?.keyID == "2X9R4HXF34" && apple.apple?.issuerID == "57246542-96FE-1a63-e053-0824d011072a")
        for bad in ["key_id = ABC", "key_id = ABCDE12345X", "key_id = ABCDE-1234", "issuer_id = not-a-uuid",
                    "issuer_id = 57246542-96fe-1a63-e053-0824d011072", "issuer_id = 57246542-96fe-1a63-e053-0824d011072z"] {
            #expect(refusal("[apple]\n\(bad)\n").count == 1, "\(bad)")
        }
    }

    /// A UTF-8 byte-order mark (Windows editors write one) is skipped, in the configuration file
    /// and in the files it names; UTF-16 is refused in one line naming the file.
    @Test func aByteOrderMarkIsSkippedAndUTF16IsRefusedNamingTheFile() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        func write(_ name: String, _ bytes: [UInt8]) throws -> String {
            let file = dir.file(name)
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            chmod(file, 0o600)
            return file
        }
        let password = try write("password", bom + Array("pw\n".utf8))
        let packs = try write("packs.json", bom + Array(#"[{"packId":"one","coins":95,"grossUsdCents":100,"appStoreProductId":"A","playProductId":"a"}]"#.utf8))
        let ini = try write("bom.ini", bom + Array("[server]\nworkers = 5\n[database]\nurl = host=db\npassword_file = \(password)\n[wallet]\npacks_file = \(packs)\n".utf8))
        let c = try ServiceConfiguration.load(file: ini, environment: [:])
        #expect(c.workers == 5 && c.sources["server.workers"] == .file(path: ini, line: 2))
        #expect(try c.postgresSettings()?.password == "pw")
        #expect(try c.coinPackTable().packs.map(\.packId) == ["one"])

        let utf16 = try write("utf16.ini", [0xFF, 0xFE] + "[server]\nworkers = 5\n".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        #expect(throws: ConfigurationErrors([.unreadable(path: utf16, reason: "UTF-16 or UTF-32 text (byte-order mark FF FE): save it as UTF-8")])) {
            try ServiceConfiguration.load(file: utf16, environment: [:])
        }
        var named = c
        named.coinPacksFile = utf16
        #expect { try named.coinPackTable() } throws: {
            "\($0)" == "[wallet] packs_file: cannot read \(utf16): UTF-16 or UTF-32 text (byte-order mark FF FE): save it as UTF-8"
        }
    }

    /// serve's start checks (and config check's) report every file a key names that cannot be
    /// used, and every missing key, in one go: not only the first.
    @Test func everyFileProblemIsReportedAtOnce() throws {
        let garbage = dir.file("garbage.pem")
        try "not a certificate\n".write(toFile: garbage, atomically: true, encoding: .utf8)
        let badPacks = dir.file("packs.json")
        try "[]".write(toFile: badPacks, atomically: true, encoding: .utf8)
        let missing = dir.file("missing")
        let c = try load("""
            [apple]
            bundle_id = chat.simplex.app
            root_certificates = \(missing).cer, \(garbage)
            issuer_id = 57246542-96fe-1a63-e053-0824d011072a
            key_id = 2X9R4HXF34
            private_key = \(missing).p8
            [google]
            package_name = chat.simplex.app
            service_account = \(missing).json
            [wallet]
            packs_file = \(badPacks)
            [database]
            url = host=db
            password_file = \(missing).pw
            """)
        let expected = [
            "[apple] root_certificates: cannot read \(missing).cer: No such file or directory",
            "[apple] root_certificates: \(garbage): neither a DER certificate nor PEM CERTIFICATE blocks",
            "[apple] private_key: cannot read \(missing).p8: No such file or directory",
            "[google] service_account: cannot read \(missing).json: No such file or directory",
        ]
        do {
            _ = try ServiceDeployment(c, clock: systemClock)
            Issue.record("a configuration naming unusable files was deployed")
        } catch let error as ConfigurationErrors {
            let lines = error.errors.map(\.description)
            #expect(Array(lines.prefix(4)) == expected, "\(lines)")
            #expect(lines.count == 6 && lines[4].hasPrefix("[wallet] packs_file: \(badPacks): ")
                    && lines[5] == "cannot read [database] password_file \(missing).pw: No such file or directory", "\(lines)")
        }
        // A section missing a key is named key by key beside the other sections' files.
        let incomplete = try load("[google]\nservice_account = \(missing).json\n[wallet]\npacks_file = \(badPacks)\n")
        do {
            _ = try ServiceDeployment(incomplete, clock: systemClock)
            Issue.record("an incomplete section was deployed")
        } catch let error as ConfigurationErrors {
            let lines = error.errors.map(\.description)
            #expect(lines.count == 3 && lines[0] == "\(path):1: [google] package_name is required when [google] is present"
                    && lines[1] == "[google] service_account: cannot read \(missing).json: No such file or directory"
                    && lines[2].hasPrefix("[wallet] packs_file: "), "\(lines)")
        }
    }

    /// Every key's default is what a fresh configuration has: a stated value is the effective
    /// one; a described one has a value worked out; an unset or required key has none.
    @Test func everyDefaultIsTheEffectiveValueOfAnEmptyConfiguration() throws {
        let fresh = try load("[apple]\n[google]\n[stripe]\n[btcpay]\n")
        for value in fresh.effectiveValues {
            #expect(value.source == .builtIn || value.key.hasPrefix("["), "\(value.key)")
            switch value.defaultValue {
            case .value(let v): #expect(value.value == v, "\(value.key)")
            case .derived: #expect(value.value != nil, "\(value.key)")
            case .unset, .required: #expect(value.value == nil, "\(value.key)")
            }
        }
        let shown = Dictionary(uniqueKeysWithValues: fresh.effectiveValues.map { ($0.key, $0) })
        #expect(shown["[stripe] api_url"]?.value == "https://api.stripe.com" && shown["[google] push_jwks_url"]?.defaultValue == .value("https://www.googleapis.com/oauth2/v3/certs"))
        #expect(shown["[server] workers"]?.defaultValue == .derived("twice the CPUs, at least 4") && shown["[stripe] secret_key"]?.defaultValue == .required)
    }
}

/// `[server] trusted_proxies` and `proxy_protocol`: read, shown by `config check`, refused in
/// one line naming the key and the entry.
@Suite struct TrustedProxiesConfigurationTests {
    let dir = TemporaryDirectory("config-proxies")
    var path: String { dir.file("badge-service.ini") }

    @Test func theKeysAreReadAndShown() throws {
        try "[server]\ntrusted_proxies = 127.0.0.1, 10.0.0.0/8,::1\nproxy_protocol = on\n".write(toFile: path, atomically: true, encoding: .utf8)
        let c = try ServiceConfiguration.load(file: path, environment: [:])
        #expect(c.trustedProxies == (try TrustedProxies(parsing: "127.0.0.1/32, 10.0.0.0/8, ::1/128")))
        #expect(c.proxyProtocol)
        let shown = Dictionary(uniqueKeysWithValues: c.effectiveValues.map { ($0.key, $0) })
        #expect(shown["[server] trusted_proxies"]?.value == "127.0.0.1/32, 10.0.0.0/8, ::1/128")
        #expect(shown["[server] trusted_proxies"]?.source == .file(path: path, line: 2))
        #expect(shown["[server] proxy_protocol"]?.value == "on")
        // Unset: nobody is trusted, and the PROXY protocol is off.
        let fresh = ServiceConfiguration()
        #expect(fresh.trustedProxies.isEmpty && !fresh.proxyProtocol)
        let defaults = Dictionary(uniqueKeysWithValues: fresh.effectiveValues.map { ($0.key, $0) })
        #expect(defaults["[server] trusted_proxies"]?.value == nil && defaults["[server] trusted_proxies"]?.defaultValue == .unset("trust none"))
        #expect(defaults["[server] proxy_protocol"]?.value == "off")
        let env = try ServiceConfiguration.load(file: nil, environment: ["BADGE_SERVICE_SERVER_TRUSTED_PROXIES": "fd00::/8"])
        #expect(env.trustedProxies.description == "fd00::/8")
    }

    @Test func aBadEntryIsOneLineNamingTheKeyAndTheEntry() throws {
        try "[server]\ntrusted_proxies = 127.0.0.1, 10.0.0.1/8\n".write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try ServiceConfiguration.load(file: path, environment: [:])
            Issue.record("accepted")
        } catch {
            let lines = error.errors.map(\.description)
            #expect(lines.count == 1 && !lines[0].contains("\n"))
            #expect(lines.first?.hasPrefix("\(path):2: [server] trusted_proxies = 127.0.0.1, 10.0.0.1/8: expected ") == true, "\(lines)")
            #expect(lines.first?.contains("entry 2 '10.0.0.1/8' has bits set past its prefix (did you mean 10.0.0.0/8?)") == true, "\(lines)")
        }
        do {
            _ = try ServiceConfiguration.load(file: nil, environment: ["BADGE_SERVICE_SERVER_TRUSTED_PROXIES": "nginx"])
            Issue.record("accepted")
        } catch {
            #expect(error.errors.map(\.description).first?.contains("BADGE_SERVICE_SERVER_TRUSTED_PROXIES") == true)
            #expect(error.errors.map(\.description).first?.contains("entry 1 'nginx' is not an IPv4 or IPv6 address") == true)
        }
    }

    @Test func theProxyProtocolWithoutTrustedProxiesIsRefusedAtStart() throws {
        var c = ServiceConfiguration()
        c.proxyProtocol = true
        #expect(throws: ConfigurationErrors.self) { _ = try ServiceDeployment(c, clock: systemClock) }
        do { _ = try ServiceDeployment(c, clock: systemClock) } catch let error as ConfigurationErrors {
            #expect(error.errors.map(\.description) == ["[server] proxy_protocol = on needs [server] trusted_proxies: with no proxy trusted, "
                                                        + "every PROXY header would be refused"])
        }
        c.trustedProxies = try TrustedProxies(parsing: "127.0.0.1")
        _ = try ServiceDeployment(c, clock: systemClock)
    }
}
