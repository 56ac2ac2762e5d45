import Foundation
import Storage

/// `badge-service migrate`: applies pending migrations to the configured database, explicitly;
/// `--status` and `--dry-run` say where the schema stands and what would run, changing nothing.
enum MigrateCommand {
    static let help = """
        Usage: badge-service migrate [--status | --dry-run] [--config FILE] [--data DIR]

        Applies the database migrations this version has and the database has not yet, one line
        on standard error per step (from → to, milliseconds), then prints "migrated DATABASE from
        N to M (steps …)" or "DATABASE is already at schema version N; nothing to do". On SQLite
        it first writes a backup of the database and issuer key file to
        <data_dir>/backups/pre-migrate-<from>-<to>-<UTC time>/ and keeps the last three
        ([database] backup_before_migrate = off skips it); a backup that fails stops it.

          --status    the database's schema version, this binary's, and the pending steps
          --dry-run   what migrating would run (and back up), without doing it

        The database is SQLite's file in the data directory, or the PostgreSQL database of
        [database] url; several instances may run it at once (PostgreSQL migrations take an
        advisory lock). serve and init migrate as they open the database too; the other commands
        do not, and refuse a database at an older schema version until this or serve has run. A
        database a newer version migrated is served when every newer step is additive, and
        refused otherwise (exit 1), as serve refuses it.
        """

    static func run(_ args: inout CommandLineArguments, environment: [String: String], output: CommandOutput) throws {
        if args.wantsHelp() { output.out(help); return }
        let status = args.flag("status"), dryRun = args.flag("dry-run")
        let common = try CommonOptions.parse(&args, environment: environment)
        try args.finish()
        if status && dryRun { throw UsageError("--status and --dry-run exclude each other") }
        let config = common.configuration
        let (location, plan) = try schemaPlan(config)
        if status {
            for line in statusLines(location: location, plan: plan) { output.out(line) }
            return
        }
        try config.refuseForeignOwner()
        try DataDirectorySetup.refuseEmptyDatabaseBesideKeyFile(config)
        if plan.isNewer && !plan.servesNewer {
            throw CommandFailure(StorageError.newerSchema(path: location, found: plan.found, supported: plan.latest).description)
        }
        if dryRun {
            for line in dryRunLines(config, location: location, plan: plan) { output.out(line) }
            return
        }
        try PreMigrateBackup.beforeMigrating(config, plan: plan)
        var ran: [SchemaEvent] = []
        let store = try config.openStore(migrate: true, onSchemaEvent: { ran.append($0) })
        output.out(outcome(location: location, events: ran, version: try store.schemaVersion(), plan: plan))
    }

    /// Where the configured database stands, read without creating or changing anything, and the
    /// name the lines give it (the file, or PostgreSQL's redacted URL).
    static func schemaPlan(_ config: ServiceConfiguration) throws -> (location: String, plan: SchemaPlan) {
        if let postgres = try config.postgresSettings() {
            try config.refuseSQLiteBesidePostgres(postgres)
            return (postgres.redacted, try config.namingServer(postgres) { try PostgresDatabase.schemaPlan(settings: postgres) })
        }
        try config.requireSQLiteFile()
        return (config.databasePath, try SQLiteDatabase.schemaPlan(path: config.databasePath))
    }

    /// `--status`: the database's version, this binary's, and the steps between them.
    static func statusLines(location: String, plan: SchemaPlan) -> [String] {
        var lines = ["database \(location) is at schema version \(plan.found)",
                     "this binary (badge-service \(BadgeServiceCLI.version)) is at schema version \(plan.latest)"]
        if plan.isNewer {
            lines += plan.beyond.map { "newer: step \($0.version) (\($0.additive ? "additive" : "not additive"))" }
            lines.append(plan.servesNewer
                         ? "this binary serves it: every newer step is additive"
                         : "this binary refuses it: step \(StepList.text(plan.notAdditive)) is not additive; upgrade the service")
        } else if plan.pending.isEmpty {
            lines.append("pending: none")
        } else {
            lines += plan.pending.map(stepLine).map { "pending: " + $0 }
        }
        return lines
    }

    /// `--dry-run`: what `migrate` (or a start) would run, and the backup it would write first.
    static func dryRunLines(_ config: ServiceConfiguration, location: String, plan: SchemaPlan) -> [String] {
        guard let to = plan.pending.last?.version, !plan.isNewer else { return [nothing(location: location, plan: plan)] }
        var lines = ["would migrate database \(location) from schema version \(plan.found) to \(to) "
                     + "(steps \(StepList.text(plan.pending.map(\.version))))"]
        lines += plan.pending.map { "  " + stepLine($0) }
        if config.databaseURL != nil {
            lines.append("no backup is made on PostgreSQL: take one with pg_dump first (README, Upgrading)")
        } else if plan.found == 0 {
            lines.append("no backup first: the database holds no schema yet")
        } else if !config.backupBeforeMigrate {
            lines.append("no backup first: [database] backup_before_migrate is off")
        } else {
            let destination = PreMigrateBackup.destination(config, from: plan.found, to: to, at: systemClock())
            lines.append("would first back up the database and issuer key file to " + PreMigrateBackup.absolute(destination)
                         + " (the last \(PreMigrateBackup.kept) pre-migrate backups are kept)")
        }
        return lines
    }

    /// The line `migrate` ends with: the steps this run applied, or why there were none.
    static func outcome(location: String, events: [SchemaEvent], version: Int, plan: SchemaPlan) -> String {
        var steps: [Int] = [], from: Int?
        for event in events {
            switch event {
            case .created(let to, let count, _):
                from = from ?? 0
                steps += Array((to - count + 1)...to)
            case .migrated(let stepFrom, let to, _):
                from = from ?? stepFrom
                steps.append(to)
            case .acceptedNewer:
                break
            }
        }
        guard let from, !steps.isEmpty else { return nothing(location: location, plan: plan, version: version) }
        return "migrated database \(location) from \(from) to \(version) (steps \(StepList.text(steps)))"
    }

    private static func nothing(location: String, plan: SchemaPlan, version: Int? = nil) -> String {
        let version = version ?? plan.found
        if version > plan.latest {
            return "database \(location) is at schema version \(version), newer than this binary's \(plan.latest); "
                + "its newer steps (\(StepList.text(plan.beyond.map(\.version)))) are additive: nothing to do"
        }
        return "database \(location) is already at schema version \(version); nothing to do"
    }

    private static func stepLine(_ step: MigrationStep) -> String {
        "step \(step.version) (\(step.additive ? "additive" : "not additive")): \(step.summary)"
    }
}
