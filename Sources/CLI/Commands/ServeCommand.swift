import BadgeCore

/// Starts the service with a checked configuration and runs it until SIGTERM or SIGINT; the
/// executable supplies it, so the CLI knows commands and configuration, not the HTTP surface.
public typealias ServiceRunner = (ServiceConfiguration) throws -> Int32

/// `badge-service serve`: reads the configuration and hands it to the ``ServiceRunner``, which
/// runs the gateway until SIGTERM or SIGINT, then stops gracefully and exits 0.
enum ServeCommand {
    static let help = """
        Usage: badge-service serve [--config FILE] [--listen HOST:PORT] [--data DIR] [--restored]

        Runs the service. With no configuration it listens on 127.0.0.1:8080 and keeps its SQLite
        database and issuer key in ./badge-data (created on first start, with key index 1 and the
        default catalog). SIGTERM or SIGINT stops it gracefully; SIGHUP re-reads the issuer key
        file and the catalog (as does a change of the key file, within a second). Stores and payment providers that
        are not configured answer provider_not_configured. A start that migrates an SQLite database an
        older release made first backs it up to <data_dir>/backups/pre-migrate-… (see migrate --help).

        A data directory restored from a backup (it holds the backup's backup.json) is refused
        until --restored is given once: that start renames it restored-from-backup.json and logs
        what to do (reconcile the payments, the codes, the recovery point).
        """

    static func run(_ args: inout CommandLineArguments, environment: [String: String], output: CommandOutput,
                    serve: ServiceRunner) throws -> Int32 {
        if args.wantsHelp() { output.out(help); return 0 }
        let listen = try args.option("listen")
        let restored = args.flag("restored")
        var common = try CommonOptions.parse(&args, environment: environment)
        if let listen {
            do { try common.configuration.setListen(listen) } catch { throw UsageError(error.description) }
        }
        try args.finish()
        let config = common.configuration
        if config.creditTestPurchases || config.askStoreEveryRequest {
            ServiceLog.warning("[development] flags are on: never run this configuration where real money flows")
        }

        try acknowledgeRestore(config, restored: restored)
        return try serve(config)
    }

    /// A restored data directory serves only once the operator says so: the database lacks
    /// whatever happened after its backup, and payments settled since must be reconciled.
    static func acknowledgeRestore(_ config: ServiceConfiguration, restored: Bool) throws {
        switch try config.restoreState() {
        case .unacknowledged(let record, let marker):
            guard restored else {
                throw CommandFailure("data directory \(config.dataDirectory) is a restore of the backup made at "
                                     + "\(RFC3339.format(record.madeAt)) (\(marker)): start it once with badge-service serve --restored, "
                                     + "then run badge-service reconcile (README, Operations)")
            }
            let path = try config.acknowledgeRestore(marker: marker)
            for line in RestoreInstructions.lines(record, dataDirectory: config.dataDirectory, acknowledgedIn: path, now: systemClock()) {
                ServiceLog.warning(line)
            }
        case .acknowledged(_, let path):
            if restored { ServiceLog.info("--restored: the restore was acknowledged already (\(path))") }
        case .notRestored:
            if restored { ServiceLog.warning("--restored: data directory \(config.dataDirectory) holds no \(BackupRecord.fileName); nothing to acknowledge") }
        }
    }
}
