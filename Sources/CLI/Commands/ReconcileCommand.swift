import BadgeCore
import Handlers
import Providers

/// `badge-service reconcile [--since TIME] [--dry-run]`: after a restore, the settlements the
/// providers made since the backup, applied to the restored database as their webhooks would have.
enum ReconcileCommand {
    static let help = """
        Usage: badge-service reconcile [--since TIME] [--dry-run] [--config FILE] [--data DIR]

        After a restore: reads the Checkout Sessions Stripe lists as complete and paid, and the
        invoices BTCPay lists as Settled (their list APIs, every page), created since TIME less
        the time an invoice may still settle (a day and an hour for BTCPay, three days and an hour
        for Stripe), and applies each settlement the database lacks as the provider's webhook
        would have: only when session or invoice, order id, amount and currency match the
        invoice. A settlement the database holds already changes nothing, so a second run applies
        nothing. Every list is read before anything is written: a provider that fails (an outage,
        a timeout, an answer over [stripe]/[btcpay] max_response_bytes) is one line, exit 1, and
        nothing applied.

        TIME is RFC 3339 (2026-11-30T02:00:00Z) or Unix seconds; by default the backup time the
        data directory records (backup.json, restored-from-backup.json). --dry-run writes nothing
        and prints what would be applied.

        Prints one line per settlement applied (provider reference and invoice id), a warning on
        standard error per settlement that does not match its invoice or names an invoice this
        database does not hold (made after the backup: refund it), and a count per provider.
        """

    static func run(_ args: inout CommandLineArguments, environment: [String: String], output: CommandOutput) throws {
        if args.wantsHelp() { output.out(help); return }
        let sinceText = try args.option("since")
        let dryRun = args.flag("dry-run")
        let common = try CommonOptions.parse(&args, environment: environment)
        try args.finish()
        let config = common.configuration
        let since: Timestamp
        if let sinceText {
            guard let parsed = parseTime(sinceText) else {
                throw UsageError("--since must be an RFC 3339 time (2026-11-30T02:00:00Z) or Unix seconds, not '\(sinceText)'")
            }
            since = parsed
        } else {
            guard let record = try config.restoreState().record else {
                throw CommandFailure("data directory \(config.dataDirectory) records no backup it was restored from "
                                     + "(no \(BackupRecord.fileName) or \(BackupRecord.acknowledgedFileName)): "
                                     + "give --since TIME, the time of the backup the database was restored from")
            }
            since = record.madeAt
        }
        let providers = try config.paymentProviders()
        let sources = providers.listings
        guard !sources.isEmpty else {
            let sections = providers.catalog.map { "[\($0.name)]" }
            let which = sections.count == 2 ? "neither \(sections[0]) nor \(sections[1])" : "none of \(sections.joined(separator: ", "))"
            throw CommandFailure("\(which) is configured: nothing to reconcile")
        }
        let store = try common.openStore()
        let service = BadgeService.settlingOnly(store: store, clock: systemClock, providers: providers)

        // Every list is read first: a provider that fails leaves the database as it was.
        var lists: [(provider: String, from: Timestamp, settlements: [ListedSettlement])] = []
        for source in sources {
            let from = service.listingStart(provider: source.name, since: since)
            do {
                lists.append((source.name, from, try source.settlements(createdSince: from)))
            } catch {
                throw CommandFailure("\(source.name): \(error); nothing was applied")
            }
        }
        output.out("reconciling the settlements since \(RFC3339.format(since))\(dryRun ? " (dry run: nothing is written)" : "")")
        var appliedSoFar = 0
        for list in lists {
            var tally = Tally()
            var seen = Set<String>()
            for settlement in list.settlements where seen.insert(settlement.providerRef).inserted {
                let reference = "\(list.provider) payment \(settlement.providerRef)"
                switch service.reconcile(settlement, from: list.provider, dryRun: dryRun) {
                case .applied(let invoiceId, let what):
                    tally.applied += 1
                    output.out("\(dryRun ? "would apply" : "applied") \(reference) to invoice \(invoiceId): \(what)")
                    if what == BadgeService.strandedSettlement {
                        output.err("badge-service: warning: \(reference) settled invoice \(invoiceId), whose key already holds a badge "
                                   + "another payment funded: it is never credited; refund it at \(list.provider)")
                    }
                case .present:
                    tally.present += 1
                case .unmatched(let invoiceId):
                    tally.unmatched += 1
                    output.err("badge-service: warning: \(reference) was settled for another order, amount or currency than its "
                               + "invoice \(invoiceId): it is never credited; look into it at \(list.provider)")
                case .notInDatabase(let orderId):
                    tally.missing += 1
                    output.err("badge-service: warning: \(reference) settled order \(orderId), but this database holds no invoice "
                               + "for it (made after the backup, or not this service's): it cannot be credited; if it is this "
                               + "service's, refund it at \(list.provider)")
                case .others:
                    tally.others += 1
                case .notSettled:
                    continue
                case .failed(let why):
                    throw CommandFailure("\(reference): \(why); \(appliedSoFar + tally.applied) applied before it, "
                                         + "which stay (run reconcile again for the rest)")
                }
            }
            appliedSoFar += tally.applied
            output.out("\(list.provider): \(tally.total) settled since \(RFC3339.format(list.from)) listed: "
                       + "\(tally.applied) \(dryRun ? "to apply" : "applied"), \(tally.present) already present, "
                       + "\(tally.unmatched) not matching their invoice, \(tally.missing) not in this database, "
                       + "\(tally.others) of other applications")
        }
    }

    /// RFC 3339, or whole Unix seconds.
    static func parseTime(_ text: String) -> Timestamp? {
        if let t = RFC3339.parse(text) { return t }
        guard !text.isEmpty, text.count <= 12, text.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Int64(text) else { return nil }
        return Timestamp(seconds: seconds)
    }

    /// What one provider's settlements came to.
    struct Tally {
        var applied = 0, present = 0, unmatched = 0, missing = 0, others = 0
        var total: Int { applied + present + unmatched + missing + others }
    }
}
