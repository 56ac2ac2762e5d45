/// `badge-service init`: prepares a data directory without starting the service, as the first
/// `serve` would; operator commands need one.
enum InitCommand {
    static let help = """
        Usage: badge-service init [--new-database] [--config FILE] [--data DIR]

        Creates the data directory, its SQLite database with the default catalog and issuer key
        index 1, each only if missing (as the first serve does), prints what it made and exits.
        It never makes a key for a database that already holds purchases, and never a database
        beside an existing key file (a database lost) unless told so (below). Like serve, it
        migrates a database an older release made, after backing it up (see migrate --help).

          --new-database   the key file was provisioned before the first start: make a new,
                           empty database beside it
        """

    static func run(_ args: inout CommandLineArguments, environment: [String: String], output: CommandOutput) throws {
        if args.wantsHelp() { output.out(help); return }
        let besideKeyFile = args.flag("new-database")
        let common = try CommonOptions.parse(&args, environment: environment)
        try args.finish()
        let prepared = try DataDirectorySetup.prepare(common.configuration, besideKeyFile: besideKeyFile)
        for line in prepared.created { output.out(line) }
        if prepared.created.isEmpty { output.out("data directory \(common.configuration.dataDirectory) is ready; nothing to do") }
    }
}
