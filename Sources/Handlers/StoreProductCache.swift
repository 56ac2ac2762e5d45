import BadgeCore
import Locking
import Storage

/// The store products, read from the database at most once per `lifetime` seconds, so
/// `catalog set-product` shows in a running service without a restart and a purchase costs no
/// extra read.
final class StoreProductCache: Sendable {
    private struct Entry {
        var products: StoreProducts
        var loadedAt: Timestamp
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

    func current() throws -> StoreProducts {
        let now = clock()
        if let entry = cached.withLock({ $0 }), now.seconds - entry.loadedAt.seconds < lifetime, now >= entry.loadedAt {
            return entry.products
        }
        let products = StoreProducts(try store.read { try $0.storeProducts() })
        cached.withLock { $0 = Entry(products: products, loadedAt: now) }
        return products
    }
}

extension BadgeService {
    /// The App Store and Google Play products this deployment prices now.
    func storeProducts() throws -> StoreProducts { try products.current() }
}
