import BadgeCore
import Handlers
import JSON
import Ledger
import Schema

/// `badge-service ledger show KEY | credit KEY --months M --support`.
enum LedgerCommand {
    static let help = """
        Usage: badge-service ledger <subcommand> [--config FILE] [--data DIR]

          show PURCHASE_KEY                      the purchase and its ledger rows, one JSON line each
          credit PURCHASE_KEY --months M --support
                                                 a goodwill `support` credit of 1-255 months; the
                                                 client's next issueBadge issues from it
        """

    static func run(_ args: inout CommandLineArguments, environment: [String: String], output: CommandOutput) throws {
        if args.wantsHelp() { output.out(help); return }
        let sub = try args.requiredPositional("ledger subcommand (show, credit)")
        let key = try args.requiredPositional("purchase key")
        switch sub {
        case "show":
            let common = try CommonOptions.parse(&args, environment: environment)
            try args.finish()
            let (purchase, rows) = try LedgerAdmin(store: try common.openStore(), clock: systemClock).show(key)
            output.out("purchase \(purchase.purchaseKey)  \(purchase.badgeType)  created \(purchase.createdAt)")
            for row in rows { output.out(String(decoding: row.json.serialized(), as: UTF8.self)) }
            if let tip = rows.last {
                output.out("balance \(tip.balanceMonths) months of \(tip.balanceBadgeType), next month from \(tip.balanceStartTs), paid through \(tip.paidThrough)")
            }
        case "credit":
            guard let months = try args.int("months", in: 1...255) else { throw UsageError("--months is required") }
            guard args.flag("support") else { throw UsageError("say --support: the only credit an operator makes is a support credit") }
            let common = try CommonOptions.parse(&args, environment: environment)
            try args.finish()
            let rows = try LedgerAdmin(store: try common.openStore(), clock: systemClock).creditSupport(key, months: months)
            for row in rows { output.out(String(decoding: row.json.serialized(), as: UTF8.self)) }
        default:
            throw UsageError("unknown ledger subcommand '\(sub)'")
        }
    }
}
