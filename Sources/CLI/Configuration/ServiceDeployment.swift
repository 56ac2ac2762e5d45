import BadgeCore
import Handlers
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
    public init(_ config: ServiceConfiguration, clock: @escaping @Sendable () -> Timestamp) throws {
        // A payment section that is present but incomplete is named key by key.
        let incomplete = config.incompletePaymentSections()
        guard incomplete.isEmpty else { throw ConfigurationErrors(incomplete) }
        apple = try config.apple.map { try $0.deployment(creditsSandbox: config.creditTestPurchases) }
        googlePlay = try config.google.map { try $0.funding(creditsTestPurchases: config.creditTestPurchases, clock: clock) }
        coinPacks = try config.coinPackTable()
        postgres = try config.postgresSettings()
    }
}
