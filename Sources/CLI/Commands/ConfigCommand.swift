import Foundation
import Handlers

/// `badge-service config check`: reads the configuration as `serve` would, without starting
/// anything or touching the data directory, and prints every key's effective value and where
/// it came from; or every mistake, one line each, and exit status 1.
enum ConfigCommand {
    static let help = """
        Usage: badge-service config check [--config FILE] [--data DIR]

        Reads the configuration file, the BADGE_SERVICE_* environment variables and --data as
        serve would, and prints every key, its effective value and where it came from (default,
        with how it is worked out when that is not a plain value; FILE:LINE, the variable's name,
        or --data); secrets are shown as (set, hidden), keys nothing sets and that have no
        default as (not set), an absent store section as one line. Unknown sections, keys and
        variables and bad values are all reported, one line each, and the exit status is 1. The
        files the keys name are read and checked as serve checks them at start, every problem
        reported, without contacting a provider or the database. Nothing is started or created.
        """

    static func run(_ args: inout CommandLineArguments, environment: [String: String], output: CommandOutput) throws {
        if args.wantsHelp() { output.out(help); return }
        let sub = try args.requiredPositional("config command (check)")
        guard sub == "check" else { throw UsageError("unknown config command '\(sub)' (config commands: check)") }
        let config = try CommonOptions.parse(&args, environment: environment).configuration
        try args.finish()
        // What serve reads and checks at start, read now so its mistake shows here first.
        _ = try ServiceDeployment(config, clock: systemClock)
        for line in listing(config) { output.out(line) }
        for warning in warnings(config) { output.err("badge-service: warning: \(warning)") }
    }

    /// The effective configuration, one line per key (and per store section), values aligned.
    /// A value nothing set says it is the default, and how that default is worked out when it is
    /// not a plain value; an absent store section lists no keys (none of them is used).
    static func listing(_ config: ServiceConfiguration) -> [String] {
        var rows: [(String, String)] = []
        var section = ""
        for value in config.effectiveValues {
            let name = String(value.key.dropFirst().prefix { $0 != "]" })
            let isStore = ServiceConfiguration.stores.contains { $0.section == name }
            let presence = config.presence(ofSection: name)
            if name != section, isStore {
                rows.append(("[\(name)] \(presence == nil ? "absent" : "present")", presence.map(\.description) ?? "default"))
            }
            section = name
            if isStore, presence == nil { continue }
            let shown = value.value.map { $0.isEmpty ? "\"\"" : $0 } ?? "(not set)"
            rows.append(("\(value.key) = \(shown)", source(of: value)))
        }
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.1 }
    }

    /// Where a value came from; for a default, what the default is when the value alone does
    /// not say it (`default: twice the CPUs, at least 4`, `default: SQLite`).
    static func source(of value: ServiceConfiguration.EffectiveValue) -> String {
        guard value.source == .builtIn else { return value.source.description }
        switch value.defaultValue {
        case .derived(let how), .unset(let how?): return "default: \(how)"
        case .value, .unset(nil), .required: return "default"
        }
    }

    /// What `serve` would warn about at start.
    static func warnings(_ config: ServiceConfiguration) -> [String] {
        var lines = config.unusedSectionWarnings(deployedVerifiers: BadgeService.deployedVerifiers)
        if config.creditTestPurchases || config.askStoreEveryRequest {
            lines.append("[development] flags are on: never run this configuration where real money flows")
        }
        if config.allowDevCoinGrants {
            lines.append("[wallet] allow_dev_coin_grants is on: a coin purchase without a store payload grants coins; "
                         + "switch it off wherever real money flows")
        }
        return lines
    }
}
