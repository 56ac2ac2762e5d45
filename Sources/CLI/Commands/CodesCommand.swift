import BadgeCore
import Handlers
import Ledger
import Storage

/// `badge-service codes create | revoke | list`.
enum CodesCommand {
    static let help = """
        Usage: badge-service codes <subcommand> [--config FILE] [--data DIR]

          create --type T --months M [--uses N] [--expires TS] [--count C] [--payment paid|unpaid|free]
                        print C new codes (default 1), one per line, each shown only this once:
                        only their hashes are stored. Months 1-255, uses 1-1000 (default 1),
                        --expires an RFC 3339 redemption deadline, --payment default paid
                        The codes are stored before they are printed: if the output is cut
                        short, revoke the unseen ones by the hash prefix codes list shows.
          revoke HASH-PREFIX | revoke --code-file FILE|-
                        redeeming it then answers code_invalid. The code is named by the hash
                        prefix codes list shows (8 to 64 hex digits, one code only), or read from
                        FILE (- : standard input), never taken on the command line
          list          every code (by hash prefix): type, months, redemptions/uses, payment, expiry
        """

    static func run(_ args: inout CommandLineArguments, environment: [String: String], output: CommandOutput) throws {
        if args.wantsHelp() { output.out(help); return }
        let sub = try args.requiredPositional("codes subcommand (create, revoke, list)")
        switch sub {
        case "create":
            let type = try args.required("type")
            guard let months = try args.int("months", in: 1...255) else { throw UsageError("--months is required") }
            let uses = try args.int("uses", in: 1...1000) ?? 1
            let count = try args.int("count", in: 1...1000) ?? 1
            let expires = try args.option("expires").map { text throws(UsageError) -> Timestamp in
                guard let t = RFC3339.parse(text) else { throw UsageError("--expires must be an RFC 3339 time, e.g. 2027-01-01T00:00:00Z") }
                return t
            }
            let paymentText = try args.option("payment") ?? "paid"
            guard let payment = CodePayment(rawValue: paymentText) else { throw UsageError("--payment must be paid, unpaid or free") }
            let common = try CommonOptions.parse(&args, environment: environment)
            try args.finish()
            let store = try common.openStore()
            let codes = try CodeAdmin(store: store, clock: systemClock)
                .create(badgeType: type, months: months, uses: uses, expires: expires, payment: payment, count: count)
            for code in codes { output.out(code) }
        case "revoke":
            let code: String
            if let file = try args.option("code-file") {
                code = try SecretInput.read(file, what: "the code")
            } else {
                code = try args.requiredPositional("the hash prefix of the code to revoke (or --code-file FILE|-)")
                if BadgeCode(parsing: code) != nil { throw SecretInput.onCommandLine("a code") }
            }
            let common = try CommonOptions.parse(&args, environment: environment)
            try args.finish()
            try CodeAdmin(store: try common.openStore(), clock: systemClock).revoke(code)
            output.out("revoked")
        case "list":
            let common = try CommonOptions.parse(&args, environment: environment)
            try args.finish()
            for item in try CodeAdmin(store: try common.openStore(), clock: systemClock).list() {
                let r = item.record
                var line = "\(item.hashPrefix)  \(r.badgeType)  \(r.months) months  \(item.redemptions)/\(r.maxUses) used  \(r.payment.rawValue)"
                line += "  expires \(r.expiresAt.map(RFC3339.format) ?? "never")  created \(r.createdAt)"
                if let revoked = r.revokedAt { line += "  REVOKED \(revoked)" }
                output.out(line)
            }
        default:
            throw UsageError("unknown codes subcommand '\(sub)'")
        }
    }
}
