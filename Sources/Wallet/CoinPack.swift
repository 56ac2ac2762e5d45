import GooglePlay
import JSON

/// A consumable coin pack: what the viewer pays and the coins it credits, with its product id
/// on each store.
public struct CoinPack: Sendable, Equatable {
    public let packId: String
    public let coins: Int64
    public let grossUsdCents: Int64
    public let appStoreProductId: String
    public let playProductId: String

    public init(packId: String, coins: Int64, grossUsdCents: Int64, appStoreProductId: String, playProductId: String) {
        self.packId = packId
        self.coins = coins
        self.grossUsdCents = grossUsdCents
        self.appStoreProductId = appStoreProductId
        self.playProductId = playProductId
    }
}

/// The packs on sale and the store's fee: one table, served by `GET /wallet/coin-packages`
/// and consulted by every purchase.
public struct CoinPackTable: Sendable, Equatable {
    /// Six packs from a 99-cent starter to $99.99. Slightly under 100 coins a dollar, so the
    /// platform keeps its margin after the store's 30 %.
    public static let defaultPacks: [CoinPack] = [
        CoinPack(packId: "starter", coins: 90, grossUsdCents: 99, appStoreProductId: "COINS_STARTER_01", playProductId: "coins_starter_01"),
        CoinPack(packId: "small", coins: 475, grossUsdCents: 499, appStoreProductId: "COINS_SMALL_01", playProductId: "coins_small_01"),
        CoinPack(packId: "medium", coins: 960, grossUsdCents: 999, appStoreProductId: "COINS_MEDIUM_01", playProductId: "coins_medium_01"),
        CoinPack(packId: "large", coins: 1_930, grossUsdCents: 1_999, appStoreProductId: "COINS_LARGE_01", playProductId: "coins_large_01"),
        CoinPack(packId: "huge", coins: 4_850, grossUsdCents: 4_999, appStoreProductId: "COINS_HUGE_01", playProductId: "coins_huge_01"),
        CoinPack(packId: "whale", coins: 9_750, grossUsdCents: 9_999, appStoreProductId: "COINS_WHALE_01", playProductId: "coins_whale_01"),
    ]
    public static let defaultStoreFeePercent = 30

    public let packs: [CoinPack]
    /// The store's cut of the gross, in percent (`[wallet] store_fee_percent`).
    public let storeFeePercent: Int

    /// A table of `packs`; a repeated pack or product id, a Play product id outside Play's
    /// grammar, a pack without coins or price, or a fee outside 0...99 is refused with the reason.
    public init(packs: [CoinPack] = CoinPackTable.defaultPacks, storeFeePercent: Int = CoinPackTable.defaultStoreFeePercent) throws(CoinPackTableError) {
        guard !packs.isEmpty else { throw CoinPackTableError("no packs") }
        guard (0...99).contains(storeFeePercent) else { throw CoinPackTableError("store fee \(storeFeePercent) % is not in 0...99") }
        for (name, ids) in [("pack id", packs.map(\.packId)), ("App Store product id", packs.map(\.appStoreProductId)),
                            ("Play product id", packs.map(\.playProductId))] {
            if let empty = ids.firstIndex(where: \.isEmpty) { throw CoinPackTableError("pack \(empty + 1) has an empty \(name)") }
            var seen = Set<String>()
            for id in ids where !seen.insert(id).inserted { throw CoinPackTableError("\(name) \(id) is repeated") }
        }
        for pack in packs where !(1...1_000_000).contains(pack.coins) || !(1...1_000_000).contains(pack.grossUsdCents) {
            throw CoinPackTableError("pack \(pack.packId): coins and grossUsdCents must be in 1...1000000")
        }
        // Checked here, not when a purchase is presented: there a Play id outside Play's grammar
        // would refuse every purchase of its pack as receipt_invalid.
        for pack in packs {
            do { try PlayIdentifiers.checkProductID(pack.playProductId) } catch {
                throw CoinPackTableError("pack \(pack.packId): playProductId \(pack.playProductId): \(error.reason)")
            }
        }
        self.packs = packs
        self.storeFeePercent = storeFeePercent
    }

    public func pack(id: String) -> CoinPack? { packs.first { $0.packId == id } }
    public func pack(appStoreProductId: String) -> CoinPack? { packs.first { $0.appStoreProductId == appStoreProductId } }

    /// What is left of `grossUsdCents` after the store's fee, rounded down to the cent.
    public func netUsdCents(gross grossUsdCents: Int64) -> Int64 { grossUsdCents * Int64(100 - storeFeePercent) / 100 }

    /// A table read from a packs file: a JSON array of objects with `packId`, `coins`,
    /// `grossUsdCents`, `appStoreProductId` and `playProductId`, and nothing else.
    public static func parse(_ bytes: [UInt8], storeFeePercent: Int) throws(CoinPackTableError) -> CoinPackTable {
        guard let items = (try? JSONValue.parse(bytes))?.arrayValue else { throw CoinPackTableError("not a JSON array") }
        var packs: [CoinPack] = []
        for (index, item) in items.enumerated() {
            let at = "pack \(index + 1)"
            guard let object = item.objectValue else { throw CoinPackTableError("\(at) is not an object") }
            let known: Set<String> = ["packId", "coins", "grossUsdCents", "appStoreProductId", "playProductId"]
            if let extra = object.members.first(where: { !known.contains($0.key) }) {
                throw CoinPackTableError("\(at) has an unknown member \(extra.key)")
            }
            func text(_ name: String) throws(CoinPackTableError) -> String {
                guard let v = object[name]?.stringValue else { throw CoinPackTableError("\(at): \(name) must be a string") }
                return v
            }
            func integer(_ name: String) throws(CoinPackTableError) -> Int64 {
                guard let v = object[name]?.numberValue?.exactInt else { throw CoinPackTableError("\(at): \(name) must be an integer") }
                return Int64(v)
            }
            packs.append(CoinPack(packId: try text("packId"), coins: try integer("coins"), grossUsdCents: try integer("grossUsdCents"),
                                  appStoreProductId: try text("appStoreProductId"), playProductId: try text("playProductId")))
        }
        return try CoinPackTable(packs: packs, storeFeePercent: storeFeePercent)
    }
}

/// Why a pack table was refused.
public struct CoinPackTableError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
