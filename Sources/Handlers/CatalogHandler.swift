import BadgeCore
import Crypto
import Foundation
import Locking
import Ledger
import Schema
import Storage

/// The catalog as clients see it, read at most once per `lifetime` seconds of the injected
/// clock: the unsigned catalog is the hottest request, and operator changes (made by the CLI,
/// maybe in another process) only need to show within a second.
final class CatalogCache: Sendable {
    private struct Entry {
        var catalog: Catalog
        var loadedAt: Timestamp
        /// The unsigned answer for `catalog`, encoded once: the same bytes for every anonymous client.
        var anonymous: RPCOutcome?
    }

    private let store: any BadgeStore
    private let lifetime: Int64
    private let clock: @Sendable () -> Timestamp
    private let cached = LockedValueBox<Entry?>(nil)

    init(store: any BadgeStore, lifetime: Int64, clock: @escaping @Sendable () -> Timestamp) {
        self.store = store
        self.lifetime = lifetime
        self.clock = clock
    }

    /// The cached catalog, or nil when it is missing or older than `lifetime`.
    private func fresh() -> Entry? {
        let now = clock()
        return cached.withLock { entry in
            guard let entry, now.seconds - entry.loadedAt.seconds < lifetime, now >= entry.loadedAt else { return nil }
            return entry
        }
    }

    /// Prices and offers not disabled, deprecated ones included (docs/protocol.md, Catalog).
    func current() throws -> Catalog {
        if let entry = fresh() { return entry.catalog }
        let now = clock()
        let (prices, offers) = try store.read { (try $0.prices(), try $0.offers()) }
        let catalog = Catalog(prices: prices.filter { $0.status != .disabled }, offers: offers.filter { $0.status != .disabled })
        cached.withLock { $0 = Entry(catalog: catalog, loadedAt: now) }
        return catalog
    }

    /// Reads the catalog now, whatever the cache holds, and caches it.
    func reload() throws -> Catalog {
        cached.withLock { $0 = nil }
        return try current()
    }

    /// The unsigned `badgeCatalog` answer, made by `encode` once per catalog read. With
    /// `cachedOnly`, nil instead of reading the database when the cache is stale.
    func anonymousOutcome(cachedOnly: Bool, _ encode: (Catalog) -> RPCOutcome) throws -> RPCOutcome? {
        switch fresh() {
        case let entry?: if let anonymous = entry.anonymous { return anonymous }
        case nil: if cachedOnly { return nil }
        }
        let catalog = try current()
        let made = encode(catalog)
        cached.withLock { entry in
            if entry?.catalog == catalog { entry?.anonymous = made }
        }
        return made
    }
}

extension BadgeService {
    /// Reads the catalog again now (SIGHUP), rather than when the cache next expires: how many
    /// prices and offers are on it.
    public func reloadCatalog() throws -> (prices: Int, offers: Int) {
        let catalog = try self.catalog.reload()
        return (catalog.prices.count, catalog.offers.count)
    }

    /// Signed `getBadgeCatalog`: the catalog and the purchase's statement.
    func getBadgeCatalog(key: Ed25519PublicKey) throws -> RPCResponse {
        let catalog = try self.catalog.current()
        let purchaseKey = key.purchaseKeyText
        // A key whose only record is an invoice (getBadgeInvoice) holds no months yet.
        let tail = try store.read { r -> LedgerTail? in
            if let purchase = try r.purchase(key: purchaseKey) {
                return try r.ledgerTail(purchaseId: purchase.id, asserting: nil,
                                        completeHistoryLimit: Statement.completeHistoryLimit)
            }
            return try r.invoices(purchaseKey: purchaseKey).isEmpty ? nil : LedgerTail(count: 0, rows: [])
        }
        guard let tail else { throw BadgeServiceError.unknownPurchaseKey }
        return .badgeCatalog(catalog: catalog, badgeStatement: statement(of: tail, asserting: nil).statement)
    }
}
