import BadgeCore
import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSON
import Ledger
import Locking
import RequestAuth
import Schema

/// `badge-service client`: a signing client for trying the service from a shell. It keeps a
/// purchase key pair, a master key and the last ledger entry in a local file (mode 0600), signs
/// every request with RFC 9421, and prints each response.
enum ClientCommand {
    static let help = """
        Usage: badge-service client [--server URL] [--key-file FILE] <command>

          catalog [--signed]   the catalog; signed, with your purchase's statement
          redeem FILE|-        redeem the code FILE holds (- : standard input) under your
                               purchase key (the first credential)
          issue                ask for the month due (or the current credential)
          send FILE|-          sign and send the command object FILE holds (- : standard input),
                               e.g. echo '{"type":"pauseBadge"}' | badge-service client send -
          show                 your purchase key and what the key file holds

        Codes and command objects (which carry master keys, receipts and store tokens) are read
        from a file or standard input, never taken on the command line, where other users' ps
        and the shell's history would show them.

        --server defaults to $BADGE_SERVICE_SERVER, else http://127.0.0.1:8080; --key-file to
        ./badge-client.json (created on first use with a fresh purchase key and master key). The
        response is printed as JSON on standard output; a protocol error is one line on standard
        error (with the response) and exit status 1.
        """

    static func run(_ args: inout CommandLineArguments, environment: [String: String], output: CommandOutput) throws {
        if args.wantsHelp() { output.out(help); return }
        let url: ServerURL
        if let server = try args.option("server") {
            url = try ServerURL(parsing: server, named: "--server")
        } else if let server = environment["BADGE_SERVICE_SERVER"] {
            url = try ServerURL(parsing: server, named: "BADGE_SERVICE_SERVER")
        } else {
            url = try ServerURL(parsing: "http://127.0.0.1:8080", named: "the default server")
        }
        let keyPath = try args.option("key-file") ?? "badge-client.json"
        let sub = try args.requiredPositional("client command (catalog, redeem, issue, send, show)")
        // Every argument is checked before the key file is read or made: a misuse creates nothing.
        enum Asked { case catalog(signed: Bool), redeem(code: String), issue, send(JSONValue), show }
        let asked: Asked
        switch sub {
        case "catalog": asked = .catalog(signed: args.flag("signed"))
        case "redeem":
            let source = try args.requiredPositional("the file holding the code (or - for standard input)")
            if BadgeCode(parsing: source) != nil { throw SecretInput.onCommandLine("a code") }
            asked = .redeem(code: try SecretInput.read(source, what: "the code"))
        case "issue": asked = .issue
        case "send":
            let source = try args.requiredPositional("the file holding a command object in JSON (or - for standard input)")
            if source.hasPrefix("{") { throw SecretInput.onCommandLine("a command object") }
            let text = try SecretInput.read(source, what: "the command object")
            do { asked = .send(try JSONValue.parse(text)) } catch { throw UsageError("\(source == "-" ? "standard input" : source): not JSON: \(error)") }
        case "show": asked = .show
        default: throw UsageError("unknown client command '\(sub)'")
        }
        try args.finish()
        var keys = try ClientKeyFile.loadOrCreate(path: keyPath)
        let command: JSONValue
        var signed = true
        switch asked {
        case .catalog(let wantsSigned):
            signed = wantsSigned
            command = ["type": "getBadgeCatalog"]
        case .redeem(let code):
            command = ["type": "redeemBadgeCode", "masterKey": .string(Base64URL.encode(keys.masterKey)), "code": .string(code)]
        case .issue:
            let last = keys.lastEntry ?? .emptyEntry(at: systemClock(), badgeType: .supporter)
            command = ["type": "issueBadge", "balance": ["lastEntry": last.json]]
        case .send(let object):
            command = object
        case .show:
            output.out("purchaseKey \(keys.privateKey.publicKey.purchaseKeyText)")
            output.out("lastEntry \(keys.lastEntry.map { String(decoding: $0.json.serialized(), as: UTF8.self) } ?? "none")")
            return
        }
        var envelope: JSONValue = ["version": 1, "request": command]
        if signed, case .object(var o) = envelope {
            o["purchaseKey"] = .string(keys.privateKey.publicKey.purchaseKeyText)
            envelope = .object(o)
        }
        let body = envelope.serialized()
        let reply = try RPCClient.post(to: url, body: body, signer: signed ? RequestSigner(key: keys.privateKey) : nil)
        let response: RPCResponse
        do { response = try RPCResponse(json: try JSONValue.parse(reply.body)) } catch {
            throw CommandFailure("HTTP \(reply.status): the reply is not a protocol response")
        }
        if case .badgeCredential(_, let statement, _, _) = response, let last = statement.entries.last {
            keys.lastEntry = last
            try keys.save(path: keyPath)
        }
        // A protocol error goes to standard error, in the one line of every failure.
        if let code = response.errorCode {
            throw CommandFailure("the service answered \(code) (HTTP \(reply.status)): \(String(decoding: reply.body, as: UTF8.self))")
        }
        output.out(String(decoding: reply.body, as: UTF8.self))
    }
}

/// The client's keys and replica tip, kept between runs.
struct ClientKeyFile {
    var privateKey: Ed25519PrivateKey
    var masterKey: [UInt8]
    var lastEntry: LedgerEntry?

    static func loadOrCreate(path: String) throws -> ClientKeyFile {
        guard FileManager.default.fileExists(atPath: path) else {
            let file = ClientKeyFile(privateKey: Ed25519PrivateKey(), masterKey: SecureRandom.bytes(32), lastEntry: nil)
            try file.save(path: path)
            return file
        }
        let bytes: [UInt8]
        switch FileSystem.read(path) {
        case .success(let b): bytes = b
        case .failure(let failure): throw CommandFailure("client key file: \(failure)")
        }
        guard let json = try? JSONValue.parse(bytes),
              let seed = json["purchaseKeySeed"]?.stringValue.flatMap(Base64URL.decode), seed.count == 32,
              let master = json["masterKey"]?.stringValue.flatMap(Base64URL.decode), master.count == 32,
              let key = try? Ed25519PrivateKey(seed: seed)
        else { throw CommandFailure("\(path) is not a badge-service client key file") }
        let last = try json["lastEntry"].map { try LedgerEntry(json: $0) }
        return ClientKeyFile(privateKey: key, masterKey: master, lastEntry: last)
    }

    func save(path: String) throws {
        var o: JSONValue = [
            "purchaseKey": .string(privateKey.publicKey.purchaseKeyText),
            "purchaseKeySeed": .string(Base64URL.encode(privateKey.seed)),
            "masterKey": .string(Base64URL.encode(masterKey)),
        ]
        if let lastEntry, case .object(var obj) = o {
            obj["lastEntry"] = lastEntry.json
            o = .object(obj)
        }
        if case .failure(let failure) = FileSystem.writeAtomically(path, o.serialized()) {
            throw CommandFailure("client key file: \(failure)")
        }
    }
}

/// One HTTP POST of a JSON body to the server's `/rpc`, signed when a signer is given: over
/// ``PlainHTTPClient`` for `http://` (IPv6 literals included), over URLSession for `https://`.
enum RPCClient {
    struct Reply {
        var status: Int
        var body: [UInt8]
        var headers: [String: String]
    }

    /// Whole exchange deadline and largest response accepted.
    static let timeout = Duration.seconds(30)
    static let maxResponse = 1 << 20

    static func post(to server: ServerURL, body: [UInt8], signer: RequestSigner?) throws -> Reply {
        let target = server.target("/rpc")
        var fields: [(name: String, value: String)] = [("Content-Type", "application/json")]
        if let signer {
            let headers: RequestSigner.Headers
            do {
                headers = try signer.sign(method: "POST", authority: server.authority, path: target, query: nil,
                                          body: body, created: systemClock())
            } catch { throw CommandFailure("cannot sign a request to \(server.authority)") }
            fields += headers.fields.map { ($0.name, $0.value) }
        }
        let place = "\(server.isHTTPS ? "https" : "http")://\(server.authority)\(target)"
        guard !server.isHTTPS else { return try postTLS(to: place, fields: fields, body: body) }
        let request = PlainHTTPClient.request(method: "POST", target: target, authority: server.authority, headers: fields, body: body)
        let response = try PlainHTTPClient.exchange(host: server.host, port: server.port, request: request, timeout: timeout,
                                                    maxResponse: maxResponse, describe: place)
        return Reply(status: response.status, body: response.body, headers: response.headers)
    }

    /// `https://` through URLSession (which takes host names and IPv4 addresses).
    static func postTLS(to place: String, fields: [(name: String, value: String)], body: [UInt8]) throws -> Reply {
        guard let url = URL(string: place) else { throw CommandFailure("URLSession cannot reach \(place); use a host name") }
        var request = URLRequest(url: url, timeoutInterval: Double(timeout.components.seconds))
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        for field in fields { request.setValue(field.value, forHTTPHeaderField: field.name) }
        let result = LockedValueBox<Result<Reply, any Error>>(.failure(CommandFailure("no reply from \(place)")))
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, error in
            if let error {
                result.withLock { $0 = .failure(CommandFailure("cannot reach \(place): \(error.localizedDescription)")) }
            } else if let http = response as? HTTPURLResponse {
                var headers = [String: String]()
                for (k, v) in http.allHeaderFields { headers["\(k)".lowercased()] = "\(v)" }
                let bytes = Array(data ?? Data())
                result.withLock {
                    $0 = bytes.count > maxResponse ? .failure(CommandFailure("\(place) sent a response over \(maxResponse) bytes"))
                        : .success(Reply(status: http.statusCode, body: bytes, headers: headers))
                }
            }
            done.signal()
        }.resume()
        done.wait()
        return try result.withLock { $0 }.get()
    }
}
