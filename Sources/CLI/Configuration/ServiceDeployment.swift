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

    /// Every mistake stops here in one line naming the key or the file, nothing created.
    /// `storeCall(store, outcome)` hears how each call to Apple or Google ended (`badge_store_calls_total`).
    public init(_ config: ServiceConfiguration, clock: @escaping @Sendable () -> Timestamp,
                storeCall: @escaping @Sendable (String, String) -> Void = { _, _ in }) throws {
        // A payment section that is present but incomplete is named key by key.
        let incomplete = config.incompletePaymentSections()
        guard incomplete.isEmpty else { throw ConfigurationErrors(incomplete) }
        apple = try config.apple.map {
            try $0.deployment(creditsSandbox: config.creditTestPurchases, transport: CountedTransport { storeCall("apple", $0) })
        }
        googlePlay = try config.google.map {
            try $0.funding(creditsTestPurchases: config.creditTestPurchases, clock: clock,
                           transport: CountedTransport { storeCall("google", $0) })
        }
        coinPacks = try config.coinPackTable()
        postgres = try config.postgresSettings()
    }
}
