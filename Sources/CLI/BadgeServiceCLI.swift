import BadgeCore
import Foundation
import Storage

/// Where a command writes: standard output for results, standard error for messages.
public struct CommandOutput: Sendable {
    public var out: @Sendable (String) -> Void
    public var err: @Sendable (String) -> Void

    public init(out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void) {
        self.out = out
        self.err = err
    }

    public static let standard = CommandOutput(
        out: { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) },
        err: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) })
}

/// A command failed at run time (not a usage mistake): one line, exit status 1.
public struct CommandFailure: Error, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The `badge-service` command line (README, Operator commands).
public enum BadgeServiceCLI {
    static let usage = """
        badge-service — sells and issues SimpleX Chat supporter badges over HTTP/1.1 + JSON

        Usage: badge-service <command> [options]

        Commands:
          serve     run the service (default: 127.0.0.1:8080, data in ./badge-data)
          init      prepare a data directory (database, catalog, issuer key) as the first serve does
          backup    copy the database (online, safe while serving) and the issuer key to a new directory
          migrate   apply pending database migrations (SQLite: after a backup); --status, --dry-run
          reconcile after a restore, apply the Stripe and BTCPay settlements made since the backup
          issuer    issuer BBS keys: keygen, show, add, activate, sign, verify
          codes     redemption codes: create, revoke, list
          catalog   prices, offers and store products: list, add-price, add-offer, deprecate, disable,
                    products, set-product, remove-product
          ledger    a purchase's months ledger: show, credit
          client    a signing client to try the service from a shell
          config    check the configuration and print it, every key with where it came from
          schema    print the JTD schema, or with --openapi the OpenAPI 3.1 document of the HTTP surface

        Every command but issuer keygen/sign/verify, client and schema takes --config FILE (INI)
        and --data DIR; --help shows its options.
        badge-service --version prints the version.
        """

    /// This build's version (`badge-service --version`); CHANGELOG.md's newest entry.
    public static let version = "0.3.0"

    /// The commands `run` knows, as the unknown-command hint lists them.
    static let commands = ["serve", "init", "backup", "migrate", "reconcile", "issuer", "codes", "catalog", "ledger", "client", "config", "schema"]

    /// Runs one command line (without the program name); returns the exit status. `serve` runs
    /// the service for the `serve` command.
    public static func run(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
                           output: CommandOutput = .standard, serve: ServiceRunner) -> Int32 {
        var args = CommandLineArguments(Array(arguments.dropFirst()))
        guard let command = arguments.first else {
            output.err("badge-service: missing command (see badge-service --help)")
            return 2
        }
        if command == "--help" || command == "-h" || command == "help" {
            output.out(usage)
            return 0
        }
        if command == "--version" || command == "version" {
            output.out("badge-service \(version)")
            return 0
        }
        do {
            switch command {
            case "serve": return try ServeCommand.run(&args, environment: environment, output: output, serve: serve)
            case "init": try InitCommand.run(&args, environment: environment, output: output)
            case "backup": try BackupCommand.run(&args, environment: environment, output: output)
            case "migrate": try MigrateCommand.run(&args, environment: environment, output: output)
            case "reconcile": try ReconcileCommand.run(&args, environment: environment, output: output)
            case "catalog": try CatalogCommand.run(&args, environment: environment, output: output)
            case "issuer": try IssuerCommand.run(&args, environment: environment, output: output)
            case "codes": try CodesCommand.run(&args, environment: environment, output: output)
            case "ledger": try LedgerCommand.run(&args, environment: environment, output: output)
            case "client": try ClientCommand.run(&args, environment: environment, output: output)
            case "config": try ConfigCommand.run(&args, environment: environment, output: output)
            case "schema": try SchemaCommand.run(&args, output: output)
            default:
                output.err("badge-service: unknown command '\(command)' (commands: \(commands.joined(separator: ", ")); see badge-service --help)")
                return 2
            }
            return 0
        } catch let e as ConfigurationErrors {
            for error in e.errors { output.err("badge-service: \(error)") }
            return 1
        } catch let e as UsageError {
            output.err("badge-service: \(e.message) (see badge-service \(command) --help)")
            return 2
        } catch {
            output.err("badge-service: \(describe(error))")
            return 1
        }
    }

    /// One line for any failure; a Foundation file error that escaped its command's own
    /// wording still names its path and the system's reason.
    static func describe(_ error: any Error) -> String {
        if FileSystemError.isFoundationFileError(error) {
            let failure = FileSystemError("use", path: "", error)
            return failure.path.isEmpty ? "file system error: \(failure.reason)" : failure.description
        }
        return String(describing: error)
    }
}

/// The options every command that reads the configuration or the data directory shares:
/// `--config FILE` and `--data DIR`.
struct CommonOptions {
    var configuration: ServiceConfiguration

    static func parse(_ args: inout CommandLineArguments, environment: [String: String]) throws -> CommonOptions {
        let file = try args.option("config")
        var config = try ServiceConfiguration.load(file: file, environment: environment)
        if let data = try args.option("data") {
            do { try config.setDataDirectory(data) } catch { throw UsageError(error.description) }
        }
        return CommonOptions(configuration: config)
    }

    func openStore(migrate: Bool = false) throws -> any OperatedStore { try configuration.openStore(migrate: migrate) }
}

/// Whole seconds of the system clock: the ledger and the expiry rule work in whole seconds.
public let systemClock: @Sendable () -> Timestamp = {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Timestamp(seconds: Int64(ts.tv_sec))
}
