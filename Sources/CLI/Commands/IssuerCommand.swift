import BadgeCore
import Credentials
import Foundation
import JSON
import Schema

/// `badge-service issuer keygen | show | add | sign | verify`.
enum IssuerCommand {
    static let help = """
        Usage: badge-service issuer <subcommand>

          keygen                     print a new key pair: {"secretKey": …, "publicKey": …}
          show [--config FILE] [--data DIR]
                                     the service's public keys by index, as clients configure them:
                                     {"active": N, "keys": {"N": "<public key>", …}}
          add --index N [--secret-key-file FILE] [--activate] [--config FILE] [--data DIR]
                                     add a key at index 1-8 (generated unless a key file is given),
                                     recorded in the database first: an index the database records
                                     with another key (another instance's) is refused; with
                                     --activate, new credentials are signed with it
          activate --index N [--config FILE] [--data DIR]
                                     sign new credentials with the key at index N (it must hold a
                                     secret key); a running serve uses it within a second or on SIGHUP
          sign --secret-key-file FILE --index N --master-key-file FILE --expiry TS --type T
                                     print a credential, for testing a client's configuration
          verify --public-key PK --credential FILE
                                     exit 0 when the credential verifies, 1 otherwise

        A secret key, or a master key (base64url), is read from FILE (as keygen prints it), or
        from standard input when FILE is -; never from the command line, where other users' `ps`
        would show it.
        """

    static func run(_ args: inout CommandLineArguments, environment: [String: String], output: CommandOutput) throws {
        if args.wantsHelp() { output.out(help); return }
        let sub = try args.requiredPositional("issuer subcommand (keygen, show, add, activate, sign, verify)")
        switch sub {
        case "keygen":
            try args.finish()
            output.out(keygen().text(.spaced))
        case "show":
            let common = try CommonOptions.parse(&args, environment: environment)
            try args.finish()
            output.out(show(try IssuerKeyFile.load(path: common.configuration.issuerKeyFile)).text(.spaced))
        case "add":
            guard let index = try args.int("index", in: IssuerKeyring.indexRange) else { throw UsageError("--index is required") }
            let secretFile = try args.option("secret-key-file")
            let activate = args.flag("activate")
            let common = try CommonOptions.parse(&args, environment: environment)
            try args.finish()
            let path = common.configuration.issuerKeyFile
            try common.configuration.refuseForeignOwner()
            let current = try IssuerKeyFile.load(path: path)
            guard current.entries[index] == nil else { throw CommandFailure("index \(index) already has a key") }
            let secret = try secretFile.map { try IssuerSecretKey(text: readSecretKey($0)) } ?? IssuerSecretKey.generate()
            var keys = current.entries.mapValues { (secretKey: $0.secretKey, publicKey: Optional($0.publicKey)) }
            keys[index] = (secret, secret.publicKey)
            let updated = try IssuerKeyring(active: activate ? index : current.activeIndex, keys: keys)
            // Recorded before the file holds it, so nothing is ever signed with a key the
            // database does not know; another instance's key at this index refuses this one.
            try IssuerKeyFile.refuseIfChangedSinceRecorded(updated, path: path, store: try common.openStore())
            try IssuerKeyFile.save(updated, path: path)
            output.out(show(updated).text(.spaced))
        case "activate":
            guard let index = try args.int("index", in: IssuerKeyring.indexRange) else { throw UsageError("--index is required") }
            let common = try CommonOptions.parse(&args, environment: environment)
            try args.finish()
            let path = common.configuration.issuerKeyFile
            try common.configuration.refuseForeignOwner()
            let current = try IssuerKeyFile.load(path: path)
            let updated = try activate(index: index, in: current, path: path)
            // Already active: the file stays as it is (and a running serve sees no change).
            if updated.activeIndex != current.activeIndex { try IssuerKeyFile.save(updated, path: path) }
            output.out(show(updated).text(.spaced))
        case "sign":
            let secretFile = try args.required("secret-key-file")
            guard let index = try args.int("index", in: IssuerKeyring.indexRange) else { throw UsageError("--index is required") }
            let masterFile = try args.required("master-key-file")
            if secretFile == "-" && masterFile == "-" { throw UsageError("only one of --secret-key-file and --master-key-file can be -") }
            let expiry = try args.required("expiry")
            let type = try args.required("type")
            try args.finish()
            let secret = try readSecretKey(secretFile)
            let master = try SecretInput.read(masterFile, what: "the master key")
            output.out(try sign(secretKey: secret, index: index, masterKey: master, expiry: expiry, type: type).json.text())
        case "verify":
            let pub = try args.required("public-key")
            let file = try args.required("credential")
            try args.finish()
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
                throw CommandFailure("cannot read \(file): \(FileSystemError.reason(error))")
            }
            guard try verify(publicKey: pub, credentialJSON: Array(data)) else { throw CommandFailure("invalid") }
            output.out("valid")
        default:
            throw UsageError("unknown issuer subcommand '\(sub)'")
        }
    }

    /// `issuer keygen`: a fresh secret and its public key, both as base64url text.
    static func keygen() -> JSONValue {
        let key = IssuerSecretKey.generate()
        return ["secretKey": .string(key.text), "publicKey": .string(key.publicKey.text)]
    }

    /// `issuer show`: the public keys by index, as clients configure them:
    /// `{"active": N, "keys": {"N": "<public key>", …}}`.
    static func show(_ keyring: IssuerKeyring) -> JSONValue {
        var keys = JSONObject()
        for (index, key) in keyring.publicKeysByIndex.sorted(by: { $0.key < $1.key }) { keys[String(index)] = .string(key.text) }
        return ["active": .number(JSONNumber(keyring.activeIndex)), "keys": .object(keys)]
    }

    /// `issuer activate`: the keyring with `index` active, refused in one line naming the file
    /// when the index holds no key, or only a public one (which cannot sign).
    static func activate(index: Int, in keyring: IssuerKeyring, path: String) throws -> IssuerKeyring {
        guard let entry = keyring.entries[index] else {
            let held = keyring.entries.keys.sorted().map(String.init).joined(separator: ", ")
            throw CommandFailure("issuer key file \(path) has no key at index \(index) (it holds \(held)); add one with issuer add --index \(index)")
        }
        guard entry.secretKey != nil else {
            throw CommandFailure("issuer key file \(path): index \(index) holds only a public key, which cannot sign")
        }
        let keys = keyring.entries.mapValues { (secretKey: $0.secretKey, publicKey: Optional($0.publicKey)) }
        return try IssuerKeyring(active: index, keys: keys)
    }

    /// `issuer sign`: a credential over the given master key, expiry and type.
    static func sign(secretKey: String, index: Int, masterKey: String, expiry: String, type: String) throws -> BadgeCredential {
        let signer = try BadgeCredentialSigner(keyIndex: index, secretKey: try IssuerSecretKey(text: secretKey))
        guard let master = Base64URL.decode(masterKey) else { throw CredentialError.malformedCredential("master key must be base64url") }
        guard let timestamp = RFC3339.parse(expiry) else {
            throw CredentialError.malformedCredential("expiry must be an RFC 3339 timestamp")
        }
        return try signer.sign(masterKey: master, expiry: timestamp, badgeType: BadgeType(type))
    }

    /// `issuer verify`: whether the credential JSON verifies under the public key.
    static func verify(publicKey: String, credentialJSON: [UInt8]) throws -> Bool {
        let credential: BadgeCredential
        do { credential = try BadgeCredential(json: try JSONValue.parse(credentialJSON)) } catch {
            throw CredentialError.malformedCredential("\(error)")
        }
        return credential.isValid(under: try IssuerPublicKey(text: publicKey))
    }

    /// The base64url text of a secret key from `path`, or standard input for `-`, checked to be a key.
    static func readSecretKey(_ path: String) throws -> String {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
                throw CommandFailure("cannot read \(path): \(FileSystemError.reason(error))")
            }
        }
        let text = String(decoding: data, as: UTF8.self)
        do { _ = try IssuerSecretKey(text: text) } catch {
            throw CommandFailure("\(path == "-" ? "standard input" : path): not an issuer secret key (base64url of 32 bytes)")
        }
        return text
    }
}
