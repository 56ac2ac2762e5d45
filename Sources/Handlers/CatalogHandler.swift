import BadgeCore
import Crypto
import Foundation
import Ledger
import Schema
import Storage

/// The catalog as clients see it, read at most once per `lifetime` seconds: the unsigned
/// catalog is the hottest request, and operator changes (made by the CLI, maybe in another
/// process) only need to show within a second.
final class CatalogCache: @unchecked Sendable {
    private let store: any BadgeStore
    private let lifetime: Int64
    private let lock = NSLock()
    private var cached: (catalog: Catalog, loadedAt: Int64)?
    /// The unsigned answer for `cached`, encoded once: the same bytes for every anonymous client.
    private var anonymous: RPCOutcome?

    init(store: any BadgeStore, lifetime: Int64) {
        self.store = store
        self.lifetime = lifetime
    }

    /// Prices and offers not disabled, deprecated ones included (spec "Catalog").
    func current() throws -> Catalog {
        let now = Int64(ProcessInfo.processInfo.systemUptime)
        lock.lock()
        if let cached, now - cached.loadedAt < lifetime {
            lock.unlock()
            return cached.catalog
        }
        lock.unlock()
        let (prices, offers) = try store.read { (try $0.prices(), try $0.offers()) }
        let catalog = Catalog(prices: prices.filter { $0.status != .disabled }, offers: offers.filter { $0.status != .disabled })
        lock.lock()
        cached = (catalog, now)
        anonymous = nil
        lock.unlock()
        return catalog
    }

    /// The unsigned `badgeCatalog` answer, made by `encode` once per catalog read.
    func anonymousOutcome(_ encode: (Catalog) -> RPCOutcome) throws -> RPCOutcome {
        let catalog = try current()
        lock.lock()
        if let anonymous, cached?.catalog == catalog {
            lock.unlock()
            return anonymous
        }
        lock.unlock()
        let made = encode(catalog)
        lock.lock()
        if cached?.catalog == catalog { anonymous = made }
        lock.unlock()
        return made
    }
}

extension BadgeService {
    /// Signed `getBadgeCatalog`: the catalog and the purchase's statement.
    func getBadgeCatalog(key: Ed25519PublicKey) throws -> RPCResponse {
        let catalog = try self.catalog.current()
        let purchase = try knownPurchase(key)
        let rows = try store.read { try $0.ledger(purchaseId: purchase.id) }
        return .badgeCatalog(catalog: catalog, badgeStatement: statement(of: rows, asserting: nil).statement)
    }
}
