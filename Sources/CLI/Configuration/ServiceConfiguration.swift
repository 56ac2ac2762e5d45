import Foundation
import HTTPServer

/// Everything `serve` and the operator commands need, from defaults, the INI file, the
/// environment (`BADGE_SERVICE_<SECTION>_<KEY>`) and command-line flags, in that order of
/// precedence (README, Configuration).
public struct ServiceConfiguration: Sendable, Equatable {
    // [server]
    public var listenHost = "127.0.0.1"
    public var listenPort = 8080
    /// Parser limits; the defaults are ``HTTPLimits``' own, the ones its tests exercise.
    public var limits = HTTPLimits()
    /// Connection deadlines; the defaults are ``HTTPTimeouts``' own.
    public var timeouts = HTTPTimeouts()
    public var maxConnections = HTTPServerConfiguration.defaultMaxConnections
    /// Threads for signature checks, SQLite and BBS signing: twice the online CPUs, at least 4.
    public var workers = max(4, 2 * HTTPServerConfiguration.onlineCPUs)
    public var signatureWindowSeconds = 300
    public var accessLog = true
    /// Where the database and issuer keys live unless set apart.
    public var dataDirectory = "badge-data"
    // [database]
    public var databasePathSetting: String?
    // [issuer]
    public var issuerKeyFileSetting: String?
    // [rpc]
    public var frontToken: String?
    // Store and provider sections; nil (absent) means that provider answers provider_not_configured.
    public var apple: AppleStoreSettings?
    public var google: GooglePlaySettings?
    public var stripe: StripeSettings?
    public var btcpay: BTCPaySettings?
    // [development]
    public var creditTestPurchases = false
    public var askStoreEveryRequest = false

    /// Non-fatal remarks (unknown keys and sections) for the operator.
    public var warnings: [String] = []

    public init() {}

    /// The SQLite database file.
    public var databasePath: String { databasePathSetting ?? dataDirectory + "/badges.sqlite" }
    /// The issuer key file.
    public var issuerKeyFile: String { issuerKeyFileSetting ?? dataDirectory + "/issuer-keys.json" }

    /// The providers whose sections are present.
    public var configuredProviders: Set<String> {
        Set(Self.stores.filter { $0.isPresent(self) }.map(\.section))
    }

    /// One line for each store or provider section present whose verifier this version does not
    /// deploy: the section changes nothing, and the operator should know it.
    public func unusedSectionWarnings(deployedVerifiers: Set<String>) -> [String] {
        configuredProviders.subtracting(deployedVerifiers).sorted().map {
            "[\($0)] is ignored: this version deploys no \($0) verifier"
        }
    }

    /// Reads `file` (when given) and the environment over the defaults.
    public static func load(file: String?, environment: [String: String]) throws(ConfigurationError) -> ServiceConfiguration {
        var config = ServiceConfiguration()
        if let file {
            let text: String
            do { text = try String(contentsOfFile: file, encoding: .utf8) } catch {
                throw .unreadable(path: file, reason: (error as NSError).localizedDescription)
            }
            try config.apply(INIFile(parsing: text))
        }
        try config.apply(environment: environment)
        return config
    }

    mutating func apply(_ ini: INIFile) throws(ConfigurationError) {
        for (section, entries) in ini.sections {
            Self.stores.first { $0.section == section }?.open(&self)
            guard Self.settings.contains(where: { $0.section == section }) else {
                warnings.append("unknown section [\(section)] ignored")
                continue
            }
            for e in entries {
                guard let setting = Self.settings.first(where: { $0.section == section && $0.key == e.key }) else {
                    warnings.append("unknown key '\(e.key)' in [\(section)] (line \(e.line)) ignored")
                    continue
                }
                try setting.apply(&self, e.value)
            }
        }
    }

    mutating func apply(environment: [String: String]) throws(ConfigurationError) {
        for setting in Self.settings {
            if let value = environment[Self.environmentName(setting.section, setting.key)] {
                try setting.apply(&self, value)
            }
        }
    }

    /// `BADGE_SERVICE_RPC_FRONT_TOKEN` for `[rpc] front_token`.
    public static func environmentName(_ section: String, _ key: String) -> String {
        "BADGE_SERVICE_\(section.uppercased())_\(key.uppercased())"
    }

    /// Sets `--listen HOST:PORT`.
    public mutating func setListen(_ text: String) throws(ConfigurationError) {
        try Self.settings.first { $0.key == "listen" }!.apply(&self, text)
    }

    // MARK: settings table

    struct Setting: Sendable {
        let section: String
        let key: String
        let apply: @Sendable (inout ServiceConfiguration, String) throws(ConfigurationError) -> Void
    }

    /// One store section: how to tell it is present, open it, and set its keys.
    struct StoreSlot: Sendable {
        let section: String
        let isPresent: @Sendable (ServiceConfiguration) -> Bool
        let open: @Sendable (inout ServiceConfiguration) -> Void
        let settings: [Setting]

        init<S: StoreSettings>(_ slot: any SendableKeyPath<ServiceConfiguration, S?>) {
            section = S.section
            isPresent = { $0[keyPath: slot] != nil }
            open = { c in if c[keyPath: slot] == nil { c[keyPath: slot] = S() } }
            settings = S.keys.map { key, property in
                Setting(section: S.section, key: key) { c, v in
                    var store = c[keyPath: slot] ?? S()
                    store[keyPath: property] = v
                    c[keyPath: slot] = store
                }
            }
        }
    }

    static let stores: [StoreSlot] = [StoreSlot(\.apple), StoreSlot(\.google), StoreSlot(\.stripe), StoreSlot(\.btcpay)]

    static let settings: [Setting] = coreSettings + stores.flatMap(\.settings)

    static let coreSettings: [Setting] = [
        Setting(section: "server", key: "listen") { c, v throws(ConfigurationError) in
            let (host, port) = try parseListen(v)
            c.listenHost = host
            c.listenPort = port
        },
        int("server", "max_request_target", 64...1_048_576) { $0.limits.maxTargetLength = $1 },
        int("server", "max_field_line", 64...1_048_576) { $0.limits.maxFieldLineLength = $1 },
        int("server", "max_head", 256...1_048_576) { $0.limits.maxHeaderSectionSize = $1 },
        int("server", "max_fields", 1...10_000) { $0.limits.maxHeaderFields = $1 },
        int("server", "max_body", 1...16_777_216) { $0.limits.maxBodySize = $1 },
        int("server", "head_timeout", 1...3600) { $0.timeouts.requestHead = .seconds($1) },
        int("server", "idle_timeout", 1...86_400) { $0.timeouts.idle = .seconds($1) },
        int("server", "max_connections", 1...1_000_000) { $0.maxConnections = $1 },
        int("server", "workers", 1...1024) { $0.workers = $1 },
        int("server", "signature_window", 1...86_400) { $0.signatureWindowSeconds = $1 },
        bool("server", "access_log") { $0.accessLog = $1 },
        Setting(section: "server", key: "data_dir") { c, v throws(ConfigurationError) in
            guard !v.isEmpty else { throw .invalidValue(setting: "[server] data_dir", value: v, expected: "a directory path") }
            c.dataDirectory = v
        },
        Setting(section: "database", key: "path") { c, v throws(ConfigurationError) in
            guard !v.isEmpty else { throw .invalidValue(setting: "[database] path", value: v, expected: "a file path") }
            c.databasePathSetting = v
        },
        Setting(section: "issuer", key: "key_file") { c, v throws(ConfigurationError) in
            guard !v.isEmpty else { throw .invalidValue(setting: "[issuer] key_file", value: v, expected: "a file path") }
            c.issuerKeyFileSetting = v
        },
        Setting(section: "rpc", key: "front_token") { c, v throws(ConfigurationError) in
            guard v.utf8.count >= 32 else {
                throw .invalidValue(setting: "[rpc] front_token", value: "(hidden)", expected: "at least 32 characters")
            }
            c.frontToken = v
        },
        bool("development", "credit_test_purchases") { $0.creditTestPurchases = $1 },
        bool("development", "ask_store_every_request") { $0.askStoreEveryRequest = $1 },
    ]

    static func int(_ section: String, _ key: String, _ range: ClosedRange<Int>,
                    _ set: @escaping @Sendable (inout ServiceConfiguration, Int) -> Void) -> Setting {
        Setting(section: section, key: key) { c, v throws(ConfigurationError) in
            guard let n = Int(v), range.contains(n) else {
                throw .invalidValue(setting: "[\(section)] \(key)", value: v, expected: "an integer in \(range.lowerBound)...\(range.upperBound)")
            }
            set(&c, n)
        }
    }

    static func bool(_ section: String, _ key: String, _ set: @escaping @Sendable (inout ServiceConfiguration, Bool) -> Void) -> Setting {
        Setting(section: section, key: key) { c, v throws(ConfigurationError) in
            switch v {
            case "on": set(&c, true)
            case "off": set(&c, false)
            default: throw .invalidValue(setting: "[\(section)] \(key)", value: v, expected: "on or off")
            }
        }
    }

    static func parseListen(_ text: String) throws(ConfigurationError) -> (String, Int) {
        let bad = ConfigurationError.invalidValue(setting: "listen", value: text, expected: "HOST:PORT, e.g. 127.0.0.1:8080")
        guard let colon = text.lastIndex(of: ":") else { throw bad }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else { throw bad }
        return (host, port)
    }
}
