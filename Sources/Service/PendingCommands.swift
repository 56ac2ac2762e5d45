// Commands whose modules are being built; each answers a clear error until wired.
enum ServeCommand {
    static func run(_ args: inout CommandLineArguments, environment: [String: String], output: CommandOutput) throws -> Int32 {
        throw CommandFailure("serve is not wired yet")
    }
}
enum IssuerCommand {
    static func run(_ args: inout CommandLineArguments, environment: [String: String], output: CommandOutput) throws {
        throw CommandFailure("issuer is not wired yet")
    }
}
enum CodesCommand {
    static func run(_ args: inout CommandLineArguments, environment: [String: String], output: CommandOutput) throws {
        throw CommandFailure("codes is not wired yet")
    }
}
enum LedgerCommand {
    static func run(_ args: inout CommandLineArguments, environment: [String: String], output: CommandOutput) throws {
        throw CommandFailure("ledger is not wired yet")
    }
}
enum ClientCommand {
    static func run(_ args: inout CommandLineArguments, environment: [String: String], output: CommandOutput) throws {
        throw CommandFailure("client is not wired yet")
    }
}
