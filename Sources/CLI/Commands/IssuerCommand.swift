import BadgeCore
import Credentials
import Foundation

/// `badge-service issuer keygen | show | add | sign | verify`.
enum IssuerCommand {
    static let help = """
        Usage: badge-service issuer <subcommand>

          keygen                     print a new key pair: {"secretKey": …, "publicKey": …}
          show [--data DIR]          the service's public keys by index, as clients configure them:
                                     {"active": N, "keys": {"N": "<public key>", …}}
          add --index N [--secret-key K] [--activate] [--data DIR]
                                     add a key at index 1-8 (generated unless --secret-key is given);
                                     with --activate, new credentials are signed with it
          sign --secret-key K --index N --master-key M --expiry TS --type T
                                     print a credential, for testing a client's configuration
          verify --public-key PK --credential FILE
                                     exit 0 when the credential verifies, 1 otherwise
        """

    static func run(_ args: inout CommandLineArguments, environment: [String: String], output: CommandOutput) throws {
        if args.wantsHelp() { output.out(help); return }
        let sub = try args.requiredPositional("issuer subcommand (keygen, show, add, sign, verify)")
        switch sub {
        case "keygen":
            try args.finish()
            let (secret, pub) = IssuerCommands.keygen()
            output.out("{\"secretKey\": \"\(secret)\", \"publicKey\": \"\(pub)\"}")
        case "show":
            let common = try CommonOptions.parse(&args, environment: environment)
            try args.finish()
            output.out(IssuerCommands.show(try IssuerKeyFile.load(path: common.configuration.issuerKeyFile)))
        case "add":
            guard let index = try args.int("index", in: IssuerKeyring.indexRange) else { throw UsageError("--index is required") }
            let secretText = try args.option("secret-key")
            let activate = args.flag("activate")
            let common = try CommonOptions.parse(&args, environment: environment)
            try args.finish()
            let path = common.configuration.issuerKeyFile
            let current = try IssuerKeyFile.load(path: path)
            guard current.entries[index] == nil else { throw CommandFailure("index \(index) already has a key") }
            let secret = try secretText.map { try IssuerSecretKey(text: $0) } ?? IssuerSecretKey.generate()
            var keys = current.entries.mapValues { (secretKey: $0.secretKey, publicKey: Optional($0.publicKey)) }
            keys[index] = (secret, secret.publicKey)
            let updated = try IssuerKeyring(active: activate ? index : current.activeIndex, keys: keys)
            try updated.save(to: URL(fileURLWithPath: path))
            output.out(IssuerCommands.show(updated))
        case "sign":
            let secret = try args.required("secret-key")
            guard let index = try args.int("index", in: IssuerKeyring.indexRange) else { throw UsageError("--index is required") }
            let master = try args.required("master-key")
            let expiry = try args.required("expiry")
            let type = try args.required("type")
            try args.finish()
            output.out(try IssuerCommands.sign(secretKey: secret, index: index, masterKey: master, expiry: expiry, type: type))
        case "verify":
            let pub = try args.required("public-key")
            let file = try args.required("credential")
            try args.finish()
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
                throw CommandFailure("cannot read \(file): \((error as NSError).localizedDescription)")
            }
            guard try IssuerCommands.verify(publicKey: pub, credentialJSON: data) else { throw CommandFailure("invalid") }
            output.out("valid")
        default:
            throw UsageError("unknown issuer subcommand '\(sub)'")
        }
    }
}
