import Gateway
import Schema

/// `badge-service schema [--openapi]`: the contract this build serves, for tools and code generators.
enum SchemaCommand {
    static let help = """
        Usage: badge-service schema [--openapi]

        Prints the JTD schema (RFC 8927) the service validates request and response bodies with, as
        GET /schema serves it; with --openapi, the OpenAPI 3.1 document of the whole HTTP surface
        (schemas in JSON Schema 2020-12 generated from the JTD schema), as GET /openapi.json serves it
        and schema/badges-rpc.openapi.json holds it. Needs no configuration or data directory.
        """

    static func run(_ args: inout CommandLineArguments, output: CommandOutput) throws {
        if args.wantsHelp() { output.out(help); return }
        let openAPI = args.flag("openapi")
        try args.finish()
        // `out` adds the final newline; both texts end with one already.
        output.out(String((openAPI ? OpenAPIDocument.text : BadgeRPCSchema.text).dropLast()))
    }
}
