import Foundation
import HTTPServer
import Providers
import RequestAuth
import Settings
import Storage
import Wallet

/// Everything `serve` and the operator commands need, from defaults, the INI file, the
/// environment (`BADGE_SERVICE_<SECTION>_<KEY>`) and command-line flags, in that order of
/// precedence (README, Configuration). The keys are those of ``keys``; nothing else is accepted.
public struct ServiceConfiguration: Sendable, Equatable {
    // [server]
    public var listenHost = "127.0.0.1"
    public var listenPort = 8080
    /// Parser limits; the defaults are ``HTTPLimits``' own, the ones its tests exercise.
    public var limits = HTTPLimits()
    /// Connection deadlines; the defaults are ``HTTPTimeouts``' own.
    public var timeouts = HTTPTimeouts()
    public var maxConnections = HTTPServerConfiguration.defaultMaxConnections
    /// Connections one peer address may hold (a 40th of the default `maxConnections`).
    public var maxConnectionsPerAddress = 250
    /// Descriptors kept for everything but connections (`max_connections` fits under RLIMIT_NOFILE minus this).
    public var descriptorReserve = 64
    /// Reverse proxies whose forwarding headers (or PROXY header) name the client.
    public var trustedProxies = TrustedProxies.none
    /// Trusted proxies open each connection with a PROXY protocol header.
    public var proxyProtocol = false
    // [limits]
    /// Request bytes all connections together may hold in buffers.
    public var maxBufferedRequestBytes = HTTPServerConfiguration.defaultMaxBufferedRequestBytes
    /// Worker-queue jobs one peer address may have waiting (of 4096).
    public var queuePerAddress = 512
    /// Failed code redemptions within `failureWindowSeconds` that block a purchase key, an address.
    public var failedCodesPerKey = 10
    public var failedCodesPerAddress = 30
    /// Failed front tokens within `failureWindowSeconds` that block an address.
    public var failedFrontTokensPerAddress = 10
    public var failureWindowSeconds = 60
    /// How long a block lasts (the `retryAfter` of `rate_limited`).
    public var failureBlockSeconds = 60
    /// Threads for signature checks, SQLite and BBS signing: twice the online CPUs, at least 4.
    public var workers = max(4, 2 * HTTPServerConfiguration.onlineCPUs)
    public var signatureWindowSeconds = 300
    public var accessLog = true
    /// Where the database and issuer keys live unless set apart.
    public var dataDirectory = "badge-data"
    // [database]
    public var databasePathSetting: String?
    /// How long a write waits for another process's write lock before the request is answered
    /// `rate_limited` (README, Configuration).
    public var databaseBusyTimeoutMilliseconds = SQLiteDatabase.defaultBusyTimeoutMilliseconds
    /// PostgreSQL instead of SQLite: a libpq connection string or `postgresql://` URI, without
    /// the password (README, PostgreSQL).
    public var databaseURL: String?
    /// A file holding the PostgreSQL password (its first line), or the password itself
    /// (`BADGE_SERVICE_DATABASE_PASSWORD`); never logged or shown.
    public var databasePasswordFile: String?
    public var databasePassword: String?
    public var databasePoolSize = PostgresSettings.defaultPoolSize
    public var databaseConnectTimeoutSeconds = PostgresSettings.defaultConnectTimeoutSeconds
    public var databaseStatementTimeoutMilliseconds = PostgresSettings.defaultStatementTimeoutMilliseconds
    /// SQLite: a start (or `migrate`) that will migrate the database first writes a backup of it
    /// under `<data_dir>/backups/` (README, Upgrading).
    public var backupBeforeMigrate = true
    // [issuer]
    public var issuerKeyFileSetting: String?
    // [rpc]
    public var frontToken: String?
    // Store and provider sections; nil (absent) means that provider answers provider_not_configured.
    public var apple: AppleStoreSettings?
    public var google: GooglePlaySettings?
    /// The payment provider sections present, by section (``ProviderCatalog``): read with
    /// ``payment(_:)``.
    public var paymentSections: [String: PresentSection] = [:]
    // [wallet]
    /// A coin purchase without a store payload grants the pack's coins (simulators); never where real money flows.
    public var allowDevCoinGrants = false
    /// The store's cut of a coin pack's price, in percent (its `netUsdCents`).
    public var coinStoreFeePercent = CoinPackTable.defaultStoreFeePercent
    /// A JSON file replacing the built-in coin pack table.
    public var coinPacksFile: String?
    /// App Store Sandbox coin purchases are credited (coins only, gross and net 0); off refuses them test_purchase.
    public var creditCoinSandbox = true
    /// A store record of a coin purchase without the buyer's account token is refused.
    public var requireCoinAccountBinding = false
    // [development]
    public var creditTestPurchases = false
    public var askStoreEveryRequest = false

    /// Where each value that is not a default came from, by ``ConfigurationKey/id`` (and by
    /// section name for a store section's presence).
    public private(set) var sources: [String: ConfigurationSource] = [:]

    public init() {}

    /// The SQLite database file.
    public var databasePath: String { databasePathSetting ?? dataDirectory + "/badges.sqlite" }
    /// The issuer key file.
    public var issuerKeyFile: String { issuerKeyFileSetting ?? dataDirectory + "/issuer-keys.json" }
    /// Read-only connections opened at start: one per worker, at most 8 (reads are short, and a
    /// worker past them waits for one).
    public var databaseReaders: Int { min(max(workers, 1), 8) }

    /// The settings of the payment provider section `Section`, nil when it is absent.
    public func payment<Section: StoreSettings>(_ section: Section.Type) -> Section? {
        paymentSections[Section.section]?.settings as? Section
    }

    /// Sets (or, with nil, removes) the payment provider section `Section`.
    public mutating func setPayment<Section: StoreSettings>(_ settings: Section?, as section: Section.Type = Section.self) {
        paymentSections[Section.section] = settings.map(PresentSection.init)
    }

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

    // MARK: the keys

    /// Every configuration key, in the order `config check` and the README list them, grouped by
    /// section. To add a key, add one line here (or to a store's ``StoreSettings/keys``) and a row
    /// to the README's table (a test compares the two, defaults included); the INI file, its
    /// `BADGE_SERVICE_*` variable and `config check` follow. A key's default is its property's
    /// initial value, or the ``KeyDefault`` its line describes.
    public static let coreKeys: [ConfigurationKey] = [
        ConfigurationKey(section: "server", name: "listen", read: { c, v throws(ConfigurationKey.Rejection) in
            (c.listenHost, c.listenPort) = try parseListen(v)
        }, show: { c in "\(c.listenHost.contains(":") ? "[\(c.listenHost)]" : c.listenHost):\(c.listenPort)" }),
        .path("server", "data_dir", \.dataDirectory),
        .size("server", "max_request_target", \.limits.maxTargetLength, in: 64...1_048_576),
        .size("server", "max_field_line", \.limits.maxFieldLineLength, in: 64...1_048_576),
        .size("server", "max_head", \.limits.maxHeaderSectionSize, in: 256...1_048_576),
        .integer("server", "max_fields", \.limits.maxHeaderFields, in: 1...10_000),
        .size("server", "max_body", \.limits.maxBodySize, in: 1...16_777_216),
        .seconds("server", "head_timeout", \.timeouts.requestHead, in: 1...3600),
        .seconds("server", "body_timeout", \.timeouts.requestBody, in: 1...3600),
        .seconds("server", "idle_timeout", \.timeouts.idle, in: 1...86_400),
        .integer("server", "max_connections", \.maxConnections, in: 1...1_000_000),
        .integer("server", "max_connections_per_address", \.maxConnectionsPerAddress, in: 1...1_000_000),
        .integer("server", "descriptor_reserve", \.descriptorReserve, in: 0...65_536),
        ConfigurationKey(section: "server", name: "trusted_proxies", read: { c, v throws(ConfigurationKey.Rejection) in
            do throws(TrustedProxiesError) { c.trustedProxies = try TrustedProxies(parsing: v) } catch {
                throw ConfigurationKey.Rejection(expected: "a comma-separated list of IPv4/IPv6 addresses or CIDR ranges "
                                                 + "(127.0.0.1, 10.0.0.0/8, ::1); \(error)")
            }
        }, show: { c in c.trustedProxies.isEmpty ? nil : c.trustedProxies.description }).defaulting(.unset("trust none")),
        .flag("server", "proxy_protocol", \.proxyProtocol),
        ConfigurationKey.integer("server", "workers", \.workers, in: 1...1024).defaulting(.derived("twice the CPUs, at least 4")),
        .duration("server", "signature_window", \.signatureWindowSeconds, unit: .seconds, in: 1...86_400),
        .flag("server", "access_log", \.accessLog),
        .size("limits", "max_buffered_request_bytes", \.maxBufferedRequestBytes, in: 65_536...(1 << 40)),
        .integer("limits", "queue_per_address", \.queuePerAddress, in: 1...4096),
        .integer("limits", "failed_codes_per_key", \.failedCodesPerKey, in: 1...1_000_000),
        .integer("limits", "failed_codes_per_address", \.failedCodesPerAddress, in: 1...1_000_000),
        .integer("limits", "failed_front_tokens_per_address", \.failedFrontTokensPerAddress, in: 1...1_000_000),
        .duration("limits", "failure_window", \.failureWindowSeconds, unit: .seconds, in: 1...86_400),
        .duration("limits", "failure_block", \.failureBlockSeconds, unit: .seconds, in: 1...86_400),
        ConfigurationKey.path("database", "path", \.databasePathSetting, shown: { $0.databasePath })
            .defaulting(.derived("<data_dir>/badges.sqlite")),
        .duration("database", "busy_timeout_ms", \.databaseBusyTimeoutMilliseconds, unit: .milliseconds, in: 0...60_000),
        {
            var url = ConfigurationKey.text("database", "url", \.databaseURL, validate: { v throws(ConfigurationKey.Rejection) in
                do throws(PostgresSettingsError) { _ = try PostgresSettings(url: v, password: nil) } catch {
                    throw ConfigurationKey.Rejection(expected: "a libpq connection string or postgresql:// URI without a password (\(error.reason))")
                }
            })
            url.hidesRefusedValue = true
            return url.defaulting(.unset("SQLite"))
        }(),
        .path("database", "password_file", \.databasePasswordFile, shown: { $0.databasePasswordFile }),
        .text("database", "password", \.databasePassword, secret: true),
        .integer("database", "pool_size", \.databasePoolSize, in: 1...1_000),
        .duration("database", "connect_timeout", \.databaseConnectTimeoutSeconds, unit: .seconds, in: 2...300),
        .duration("database", "statement_timeout_ms", \.databaseStatementTimeoutMilliseconds, unit: .milliseconds, in: 1...600_000),
        .flag("database", "backup_before_migrate", \.backupBeforeMigrate),
        ConfigurationKey.path("issuer", "key_file", \.issuerKeyFileSetting, shown: { $0.issuerKeyFile })
            .defaulting(.derived("<data_dir>/issuer-keys.json")),
        ConfigurationKey.text("rpc", "front_token", \.frontToken, secret: true, validate: { v throws(ConfigurationKey.Rejection) in
            do { _ = try TrustedFront.enabled(token: v) } catch {
                throw ConfigurationKey.Rejection(expected: "\(TrustedFront.minimumTokenLength) or more characters of A-Z a-z 0-9 - . _ ~ + / (then = padding)")
            }
        }).defaulting(.unset("off")),
        .flag("wallet", "allow_dev_coin_grants", \.allowDevCoinGrants),
        .integer("wallet", "store_fee_percent", \.coinStoreFeePercent, in: 0...99),
        ConfigurationKey.path("wallet", "packs_file", \.coinPacksFile, shown: { $0.coinPacksFile }).defaulting(.unset("the built-in table")),
        .flag("wallet", "sandbox", \.creditCoinSandbox),
        .flag("wallet", "require_account_binding", \.requireCoinAccountBinding),
        .flag("development", "credit_test_purchases", \.creditTestPurchases),
        .flag("development", "ask_store_every_request", \.askStoreEveryRequest),
    ]

    /// The store and provider sections, each declaring its keys in its ``StoreSettings`` type:
    /// the stores', then every payment provider's of the catalog.
    static let stores: [StoreSlot] = [StoreSlot(\.apple), StoreSlot(\.google)] + ProviderCatalog.deployed.map { StoreSlot(payment: $0) }

    /// Every key: the core keys, then each store section's.
    public static let keys: [ConfigurationKey] = coreKeys + stores.flatMap(\.keys)

    /// `BADGE_SERVICE_*` variables that are not configuration keys: the client's server.
    public static let otherVariables: Set<String> = ["BADGE_SERVICE_SERVER"]

    /// Every section a file may hold.
    public static var sections: [String] {
        var seen = Set<String>()
        return keys.map(\.section).filter { seen.insert($0).inserted }
    }

    static let keysByID = Dictionary(uniqueKeysWithValues: keys.map { ($0.id, $0) })
    static let keysByVariable = Dictionary(uniqueKeysWithValues: keys.map { ($0.environmentVariable, $0) })

    // MARK: loading

    /// Reads `file` (when given) and the environment over the defaults; every mistake in
    /// either is reported, all at once.
    public static func load(file: String?, environment: [String: String]) throws(ConfigurationErrors) -> ServiceConfiguration {
        var config = ServiceConfiguration()
        var errors: [ConfigurationError] = []
        if let file {
            switch ConfiguredFile.readText(file) {
            case .success(let text):
                errors += config.apply(INIFile(parsing: text, path: file))
                if let (mode, reader) = FileSystem.outsideReaders(file),
                   let secret = Self.keys.first(where: { key in
                       guard key.isSecret, case .file? = config.sources[key.id] else { return false }
                       return true
                   }) {
                    errors.append(.sharedSecrets(path: file, mode: mode, readers: reader.phrase, key: secret.label))
                }
            case .failure(let failure): errors.append(.unreadable(path: file, reason: failure.reason))
            }
        }
        errors += config.apply(environment: environment)
        guard errors.isEmpty else { throw ConfigurationErrors(errors) }
        return config
    }

    /// A present payment provider section or `[google]` missing a key it cannot work without
    /// (a half-configured provider would take payments it could never settle), and a part of
    /// `[apple]`'s App Store Server API key. `serve` and
    /// `config check` refuse such a configuration; the other commands do not use the providers.
    public func incompletePaymentSections() -> [ConfigurationError] {
        var errors: [ConfigurationError] = []
        func require(_ section: String, _ missing: [String]) {
            let at = presence(ofSection: section) ?? .builtIn
            for key in missing { errors.append(.missingKey(section: section, key: key, at: at)) }
        }
        // Each section's required keys are the ones its key table marks required.
        for kind in ProviderCatalog.deployed {
            if let section = paymentSections[kind.name] { require(kind.name, section.settings.missingRequiredKeys) }
        }
        if let g = google {
            require("google", g.missingRequiredKeys)
            // The push keys are optional (without them POST /webhooks/google answers 501), but a part of them is a mistake.
            let push = [("push_audience", g.pushAudience), ("push_service_account", g.pushServiceAccount)]
            if push.contains(where: { !($0.1 ?? "").isEmpty }) || g.pushJWKSURL != nil {
                let at = presence(ofSection: "google") ?? .builtIn
                for (key, value) in push where (value ?? "").isEmpty {
                    errors.append(.incompleteKeySet(section: "google", key: key, set: push.map(\.0),
                                                    purpose: "the Pub/Sub push authentication", at: at))
                }
            }
        }
        // The App Store Server API key is optional (without it, subscriptions answer
        // provider_not_configured), but a part of it is a mistake.
        if let a = apple {
            let set = [("issuer_id", a.issuerID), ("key_id", a.keyID), ("private_key", a.privateKeyFile)]
            if set.contains(where: { !($0.1 ?? "").isEmpty }) {
                let at = presence(ofSection: "apple") ?? .builtIn
                for (key, value) in set where (value ?? "").isEmpty {
                    errors.append(.incompleteKeySet(section: "apple", key: key, set: set.map(\.0),
                                                    purpose: "the App Store Server API key", at: at))
                }
            }
        }
        return errors
    }

    /// Applies the file's keys; returns every mistake.
    mutating func apply(_ ini: INIFile) -> [ConfigurationError] {
        var errors = ini.errors
        for section in ini.sections where !section.name.isEmpty {
            let at = ConfigurationSource.file(path: ini.path, line: section.line)
            guard Self.sections.contains(section.name) else {
                errors.append(.unknownSection(section.name, at: at, suggestion: closest(to: section.name, among: Self.sections)))
                continue
            }
            if let store = Self.stores.first(where: { $0.section == section.name }), !store.isPresent(self) {
                store.open(&self)
                sources[section.name] = at
            }
            for entry in section.entries {
                let at = ConfigurationSource.file(path: ini.path, line: entry.line)
                guard let key = Self.keysByID[section.name + "." + entry.key] else {
                    let names = Self.keys.filter { $0.section == section.name }.map(\.name)
                    errors.append(.unknownKey(section: section.name, key: entry.key, at: at,
                                              suggestion: closest(to: entry.key, among: names)))
                    continue
                }
                if let error = set(key, entry.value, from: at) { errors.append(error) }
            }
        }
        // In file order, whichever rule each line broke.
        return errors.enumerated().sorted { a, b in
            (a.element.line ?? 0, a.offset) < (b.element.line ?? 0, b.offset)
        }.map(\.element)
    }

    /// Applies the `BADGE_SERVICE_*` variables; returns every mistake, in name order.
    mutating func apply(environment: [String: String]) -> [ConfigurationError] {
        var errors: [ConfigurationError] = []
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) where name.hasPrefix("BADGE_SERVICE_") {
            guard let key = Self.keysByVariable[name] else {
                if !Self.otherVariables.contains(name) {
                    let names = Array(Self.keysByVariable.keys) + Self.otherVariables
                    errors.append(.unknownVariable(name, suggestion: closest(to: name, among: names.sorted())))
                }
                continue
            }
            if let store = Self.stores.first(where: { $0.section == key.section }), !store.isPresent(self) {
                store.open(&self)
                sources[key.section] = .environment(variable: name)
            }
            if let error = set(key, value, from: .environment(variable: name)) { errors.append(error) }
        }
        return errors
    }

    /// Sets one key from its text, recording where it came from; returns the mistake, if any.
    mutating func set(_ key: ConfigurationKey, _ text: String, from source: ConfigurationSource) -> ConfigurationError? {
        do throws(ConfigurationKey.Rejection) {
            try key.read(&self, text)
            sources[key.id] = source
            return nil
        } catch {
            return .invalidValue(setting: key.label, value: key.isSecret || key.hidesRefusedValue ? "(hidden)" : text, expected: error.expected, at: source)
        }
    }

    /// Sets `--listen HOST:PORT`.
    public mutating func setListen(_ text: String) throws(ConfigurationError) {
        if let error = set(Self.keysByID["server.listen"]!, text, from: .commandLine(flag: "--listen")) { throw error }
    }

    /// Sets `--data DIR`.
    public mutating func setDataDirectory(_ text: String) throws(ConfigurationError) {
        if let error = set(Self.keysByID["server.data_dir"]!, text, from: .commandLine(flag: "--data")) { throw error }
    }

    // MARK: the effective configuration

    /// One key's effective value and where it came from, as `config check` prints it.
    public struct EffectiveValue: Equatable, Sendable {
        public var key: String
        /// The value, masked for a secret that is set; nil when unset.
        public var value: String?
        public var source: ConfigurationSource
        /// The key's default as the key table states it, said beside a value that is the default.
        public var defaultValue: KeyDefault

        public init(key: String, value: String?, source: ConfigurationSource, defaultValue: KeyDefault = .unset(nil)) {
            self.key = key
            self.value = value
            self.source = source
            self.defaultValue = defaultValue
        }
    }

    /// Every key's effective value, in ``keys`` order; store keys of an absent section are unset.
    public var effectiveValues: [EffectiveValue] {
        Self.keys.map { key in
            let value = key.show(self)
            return EffectiveValue(key: key.label, value: key.isSecret && value != nil ? "(set, hidden)" : value,
                                  source: sources[key.id] ?? .builtIn, defaultValue: key.defaultValue)
        }
    }

    /// Where a store section's presence came from, or nil when it is absent.
    public func presence(ofSection section: String) -> ConfigurationSource? {
        guard configuredProviders.contains(section) else { return nil }
        return sources[section] ?? .builtIn
    }

    static func parseListen(_ text: String) throws(ConfigurationKey.Rejection) -> (String, Int) {
        let bad = ConfigurationKey.Rejection(expected: "HOST:PORT, e.g. 127.0.0.1:8080 or [::1]:8080")
        guard let colon = text.lastIndex(of: ":") else { throw bad }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else { throw bad }
        guard isListenHost(host) else {
            throw ConfigurationKey.Rejection(expected: "HOST:PORT with HOST an IPv4 address, an IPv6 address in brackets or a host name")
        }
        return (host, port)
    }

    /// An address literal or a host name by its syntax, so `config check` refuses what `serve`
    /// could never bind (`1.2.3.4.5`, `127.0.0.1.`) without asking a resolver.
    static func isListenHost(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1 { return true }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard host.utf8.count <= 253, let last = labels.last, !last.allSatisfy(\.isNumber) else { return false }
        return labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D }
        }
    }
}

/// A payment provider section that is present, whichever kind: its settings (equal when they
/// are the same settings of the same kind).
public struct PresentSection: Sendable, Equatable {
    public let settings: any StoreSettings

    public init(_ settings: any StoreSettings) { self.settings = settings }

    public static func == (a: PresentSection, b: PresentSection) -> Bool { a.settings.isEqual(to: b.settings) }
}

/// One store section: how to tell it is present, open it, and its keys as configuration keys.
struct StoreSlot: Sendable {
    let section: String
    let isPresent: @Sendable (ServiceConfiguration) -> Bool
    let open: @Sendable (inout ServiceConfiguration) -> Void
    let keys: [ConfigurationKey]

    /// A store's section, kept in its own property.
    init<S: StoreSettings>(_ slot: any SendableKeyPath<ServiceConfiguration, S?>) {
        self.init(S.self, get: { $0[keyPath: slot] }, set: { c, s in c[keyPath: slot] = s })
    }

    /// A payment provider kind's section, kept in ``ServiceConfiguration/paymentSections``.
    init(payment kind: any ConfiguredProvider.Type) {
        func slot<K: ConfiguredProvider>(_ kind: K.Type) -> StoreSlot {
            StoreSlot(K.Settings.self, get: { $0.payment(K.Settings.self) }, set: { c, s in c.setPayment(s) })
        }
        self = slot(kind)
    }

    init<S: StoreSettings>(_ type: S.Type, get: @escaping @Sendable (ServiceConfiguration) -> S?,
                           set: @escaping @Sendable (inout ServiceConfiguration, S?) -> Void) {
        section = S.section
        isPresent = { get($0) != nil }
        open = { c in if get(c) == nil { set(&c, S()) } }
        keys = S.keys.map { key in
            var wrapped = ConfigurationKey(section: S.section, name: key.name, isSecret: key.isSecret, read: { c, v throws(ConfigurationKey.Rejection) in
                var store = get(c) ?? S()
                try key.read(&store, v)
                set(&c, store)
            }, show: { c in get(c).flatMap(key.show) }, shownDefault: { key.show(S()) })
            wrapped.hidesRefusedValue = key.hidesRefusedValue
            wrapped.describedDefault = key.describedDefault
            return wrapped
        }
    }
}

/// The candidate nearest to `word` by edit distance, if near enough to be a likely typo.
func closest(to word: String, among candidates: [String]) -> String? {
    let best = candidates.map { ($0, editDistance(word, $0)) }.min { $0.1 < $1.1 }
    guard let best, best.1 <= max(1, min(3, word.count / 3)) else { return nil }
    return best.0
}

/// Levenshtein distance between two short strings.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    var previous = Array(0...b.count)
    for i in 1...max(1, a.count) where !a.isEmpty {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...max(1, b.count) where !b.isEmpty {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return a.isEmpty ? b.count : previous[b.count]
}
