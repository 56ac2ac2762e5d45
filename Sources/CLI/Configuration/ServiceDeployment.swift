import BadgeCore
import Handlers
import OutsideHTTP
import Storage
import Wallet

/// What `serve` reads and builds from its configuration before it touches the data directory:
/// every file a key names and every rule across keys, without contacting a provider or a
/// database. `config check` builds the same and drops it, so the two refuse alike.
public struct ServiceDeployment: Sendable {
    /// `[apple]`: the roots and the App Store Server API key, read.
    public let apple: AppStoreDeployment?
    /// `[google]`: the service account's key, read.
    public let googlePlay: GooglePlayFunding?
    /// `[wallet]`: the built-in table or `packs_file`.
    public let coinPacks: CoinPackTable
    /// `[database] url` with its password (nil: SQLite).
    public let postgres: PostgresSettings?

    /// Every mistake stops here, each in one line naming the key or the file, all of them at
    /// once (every missing key, every file that cannot be used), nothing created.
    /// `storeCall(store, outcome)` hears how each call to Apple or Google ended (`badge_store_calls_total`).
    public init(_ config: ServiceConfiguration, clock: @escaping @Sendable () -> Timestamp,
                storeCall: @escaping @Sendable (String, String) -> Void = { _, _ in }) throws {
        // A payment section that is present but incomplete is named key by key.
        let incomplete = config.incompletePaymentSections()
        var problems = incomplete
        if config.proxyProtocol && config.trustedProxies.isEmpty {
            // Only trusted peers may send the header, so every connection would be closed.
            problems.append(.deployment("[server] proxy_protocol = on needs [server] trusted_proxies: with no proxy trusted, "
                                        + "every PROXY header would be refused"))
        }
        func collect<T>(_ build: () throws -> T) -> T? {
            do { return try build() } catch let errors as ConfigurationErrors {
                problems += errors.errors
            } catch {
                problems.append(.deployment("\(error)"))
            }
            return nil
        }
        let apple = config.apple.flatMap { settings in
            collect { try settings.deployment(creditsSandbox: config.creditTestPurchases, transport: CountedTransport { storeCall("apple", $0) }) }
        }
        var googlePlay: GooglePlayFunding?
        if let google = config.google {
            if incomplete.contains(where: { $0.section == "google" }) {
                // Its missing keys are named above; its key file, if given, is still read now.
                if google.serviceAccountFile.map({ !$0.isEmpty }) == true { _ = collect { try google.serviceAccountKey() } }
            } else {
                googlePlay = collect {
                    try google.funding(creditsTestPurchases: config.creditTestPurchases, clock: clock,
                                       transport: CountedTransport { storeCall("google", $0) })
                }
            }
        }
        let coinPacks = collect { try config.coinPackTable() }
        let postgres = collect { try config.postgresSettings() }
        guard problems.isEmpty, let coinPacks, let postgres else { throw ConfigurationErrors(problems) }
        self.apple = apple
        self.googlePlay = googlePlay
        self.coinPacks = coinPacks
        self.postgres = postgres
    }
}

private extension ConfigurationError {
    /// The store section a missing-key error names.
    var section: String? {
        switch self {
        case .missingKey(let section, _, _), .incompleteKeySet(let section, _, _, _, _): return section
        default: return nil
        }
    }
}
