import BadgeCore

/// The coin wallet's storage (issue 13): an append-only coin ledger per account, kept apart
/// from the badge tables and small, so a PostgreSQL backend can implement it beside ``BadgeStore``.
public protocol WalletStore: Sendable {
    /// Runs `body` against a consistent snapshot.
    func readWallet<T>(_ body: (any WalletReader) throws -> T) throws -> T
    /// Runs `body` in one transaction: all of its writes land, or none.
    func writeWallet<T>(_ body: (any WalletWriter) throws -> T) throws -> T
}

/// Queries of the coin ledger, inside a read or write transaction.
public protocol WalletReader {
    /// The row recorded under `entryKey` (e.g. `coin_purchase:google:GPA.1`), if any.
    func coinRow(entryKey: String) throws -> CoinRow?
    /// The Play coin purchase credited for the token whose SHA-256 (unpadded base64url) is `tokenSHA256`, if any.
    func coinPurchase(tokenSHA256: String) throws -> CoinRow?
    /// The account's rows, newest first, at most `limit`.
    func coinRows(account: String, limit: Int) throws -> [CoinRow]
    /// The sum of the account's rows (negative when reversals outran what was left: debt).
    func coinSum(account: String) throws -> Int64
    /// Whether a verified store notice took this payment back before anything credited it
    /// (`badge_refunds`: the badge ledger's listener records every one-time purchase it did not
    /// credit, coin packs included, as ``StoreWriter/recordRefund(_:at:)``).
    func isRefunded(_ refund: ProviderRefund) throws -> Bool
}

/// Changes to the coin ledger, inside a write transaction.
public protocol WalletWriter: WalletReader {
    /// Appends a row; ``StorageError/conflict(constraint:)`` when its entry key is taken.
    func appendCoinRow(_ row: CoinRow) throws
}

/// One row of an account's coin ledger. Rows are never changed; the balance is their sum.
public struct CoinRow: Sendable, Equatable {
    /// What moved the coins.
    public enum Kind: String, Sendable {
        /// A store purchase the store confirmed, server to server.
        case purchase
        /// A refund or revocation of a purchase: its coins taken back.
        case reversal
        /// Coins granted without payment (`[wallet] allow_dev_coin_grants`).
        case devGrant = "dev_grant"
    }

    /// Where the store says the purchase was made: a Sandbox purchase is paid by nobody.
    public enum Environment: String, Sendable {
        case production
        case sandbox
    }

    /// Unique platform-wide: `coin_purchase:<channel>:<ref>`, `coin_reversal:<channel>:<ref>`, `dev_grant:<random>`.
    public let entryKey: String
    /// The wallet account: the canonical purchase key text of the signing key.
    public let account: String
    public let kind: Kind
    /// `apple`, `google` or `dev`.
    public let channel: String
    /// The store's transaction or order id; nil for a dev grant.
    public let externalRef: String?
    public let packId: String
    /// The change: positive for a purchase or grant, negative for a reversal.
    public let coins: Int64
    public let grossUsdCents: Int64
    public let netUsdCents: Int64
    public let createdAt: Timestamp
    /// A store purchase's (and its reversal's) environment; nil for a dev grant and rows written before it was recorded.
    public let environment: Environment?
    /// A Play purchase's token digest (SHA-256, unpadded base64url), never the token; nil otherwise.
    public let tokenSHA256: String?

    public init(entryKey: String, account: String, kind: Kind, channel: String, externalRef: String?, packId: String,
                coins: Int64, grossUsdCents: Int64, netUsdCents: Int64, createdAt: Timestamp,
                environment: Environment? = nil, tokenSHA256: String? = nil) {
        self.entryKey = entryKey
        self.account = account
        self.kind = kind
        self.channel = channel
        self.externalRef = externalRef
        self.packId = packId
        self.coins = coins
        self.grossUsdCents = grossUsdCents
        self.netUsdCents = netUsdCents
        self.createdAt = createdAt
        self.environment = environment
        self.tokenSHA256 = tokenSHA256
    }
}
