import BadgeCore
import Handlers
import Storage

/// `badge-service catalog list | add-price | add-offer | deprecate ID | disable ID | products | set-product | remove-product`.
enum CatalogCommand {
    static let help = """
        Usage: badge-service catalog <subcommand> [--config FILE] [--data DIR]

          list                                   prices and offers, disabled ones included
          add-price --type T --month-price N --currency C [--replace PRICE_ID]
                                                 a new active price (minor units per month); with
                                                 --replace, the old price is deprecated in the same step
          add-offer --months M (--free-months F | --discount PERCENT) [--price PRICE_ID]
                                                 a discounted duration, for one price or any
          deprecate ID                           still sent and accepted at invoice creation
          disable ID                             omitted from the catalog and refused
          products                               the App Store and Google Play products priced: store,
                                                 product id, base plan, badge, months, kind
          set-product --store apple|google --product ID [--base-plan ID] --type T --months M
                      --kind one-time|subscription|upgrade
                                                 prices a store product (or changes what it grants);
                                                 --base-plan for each Google Play subscription base plan
          remove-product --store apple|google --product ID [--base-plan ID]
                                                 stops pricing it: a purchase of it is then
                                                 product_unavailable; credited months stay
        The service reads store products and catalog changes within a second, without a restart.
        """

    static func run(_ args: inout CommandLineArguments, environment: [String: String], output: CommandOutput) throws {
        if args.wantsHelp() { output.out(help); return }
        let sub = try args.requiredPositional("catalog subcommand (list, add-price, add-offer, deprecate, disable, products, set-product, remove-product)")
        let common = try CommonOptions.parse(&args, environment: environment)
        switch sub {
        case "products":
            try args.finish()
            let store = try common.openStore()
            for p in try store.read({ try $0.storeProducts() }) { output.out(StoreProductAdmin.describe(p)) }
        case "set-product":
            let storeName = try args.required("store")
            let productId = try args.required("product")
            let basePlan = try args.option("base-plan")
            let type = try args.required("type")
            guard let months = try args.int("months", in: 1...255) else { throw UsageError("--months is required") }
            let kindText = try args.required("kind")
            try args.finish()
            guard let kind = StoreProduct.Kind(rawValue: kindText) else {
                throw UsageError("--kind must be one-time, subscription or upgrade, not '\(kindText)'")
            }
            let product = StoreProduct(store: storeName, productId: productId, basePlanId: basePlan, badgeType: BadgeType(type),
                                       months: months, kind: kind)
            let store = try common.openStore()
            try StoreProductAdmin(store: store).set(product)
            output.out(StoreProductAdmin.describe(product))
        case "remove-product":
            let storeName = try args.required("store")
            let productId = try args.required("product")
            let basePlan = try args.option("base-plan")
            try args.finish()
            let store = try common.openStore()
            try StoreProductAdmin(store: store).remove(store: storeName, productId: productId, basePlanId: basePlan)
            output.out("\(storeName) \(productId)\(basePlan.map { " base plan \($0)" } ?? "") removed")
        case "list":
            try args.finish()
            let store = try common.openStore()
            try DefaultCatalog.seedIfEmpty(store, at: systemClock())
            let (prices, offers) = try store.read { (try $0.prices(), try $0.offers()) }
            for p in prices {
                output.out("price  \(p.priceId)  \(p.badgeType)  \(p.monthPrice) \(p.currency)/month  \(p.status.rawValue)  \(p.createdAt)")
            }
            for o in offers {
                let discount = switch o.discount {
                case .freeMonths(let n): "\(n) free"
                case .percent(let p): "\(p)% off"
                }
                output.out("offer  \(o.offerId)  \(o.months) months, \(discount)  price \(o.priceId ?? "any")  \(o.status.rawValue)  \(o.createdAt)")
            }
        case "add-price":
            let type = try args.required("type")
            guard let monthPrice = try args.int("month-price", in: 1...Int(UInt32.max)) else { throw UsageError("--month-price is required") }
            let currency = try args.required("currency")
            let replacing = try args.option("replace")
            try args.finish()
            let store = try common.openStore()
            try DefaultCatalog.seedIfEmpty(store, at: systemClock())
            let price = try CatalogAdmin(store: store, clock: systemClock)
                .addPrice(badgeType: type, monthPrice: monthPrice, currency: currency, replacing: replacing)
            output.out(price.priceId)
        case "add-offer":
            guard let months = try args.int("months", in: 1...255) else { throw UsageError("--months is required") }
            let free = try args.int("free-months", in: 1...254)
            let percent = try args.int("discount", in: 1...99)
            let priceId = try args.option("price")
            try args.finish()
            let discount: OfferDiscount
            switch (free, percent) {
            case (let f?, nil): discount = .freeMonths(f)
            case (nil, let p?): discount = .percent(p)
            default: throw UsageError("give exactly one of --free-months and --discount")
            }
            let store = try common.openStore()
            try DefaultCatalog.seedIfEmpty(store, at: systemClock())
            let offer = try CatalogAdmin(store: store, clock: systemClock).addOffer(months: months, discount: discount, priceId: priceId)
            output.out(offer.offerId)
        case "deprecate", "disable":
            let id = try args.requiredPositional("price or offer id")
            try args.finish()
            let store = try common.openStore()
            try DefaultCatalog.seedIfEmpty(store, at: systemClock())
            try CatalogAdmin(store: store, clock: systemClock).setStatus(id, sub == "disable" ? .disabled : .deprecated)
            output.out("\(id) \(sub == "disable" ? "disabled" : "deprecated")")
        default:
            throw UsageError("unknown catalog subcommand '\(sub)'")
        }
    }
}
