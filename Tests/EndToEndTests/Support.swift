import BadgeCore
import Crypto
import Foundation
import Locking
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSON
import Ledger
import RequestAuth
import Schema
import TestSupport

/// A plain HTTP exchange with the service.
struct HTTPReply {
    let status: Int
    let headers: [String: String]
    let body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: JSONValue? { try? JSONValue.parse(body) }
    var response: RPCResponse? { json.flatMap { try? RPCResponse(json: $0) } }
}

enum HTTP {
    static func request(_ method: String, _ url: String, body: [UInt8]? = nil, headers: [String: String] = [:]) throws -> HTTPReply {
        var request = URLRequest(url: URL(string: url)!, timeoutInterval: 30)
        request.httpMethod = method
        if let body { request.httpBody = Data(body) }
        for (k, v) in headers { request.setValue(v, forHTTPHeaderField: k) }
        let result = LockedValueBox<Result<HTTPReply, any Error>>(.failure(URLError(.badServerResponse)))
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, error in
            if let error { result.withLock { $0 = .failure(error) } } else if let http = response as? HTTPURLResponse {
                var h = [String: String]()
                for (k, v) in http.allHeaderFields { h["\(k)".lowercased()] = "\(v)" }
                let reply = HTTPReply(status: http.statusCode, headers: h, body: Array(data ?? Data()))
                result.withLock { $0 = .success(reply) }
            }
            done.signal()
        }.resume()
        // URLSession's own timeout should fire first; this bounds a session that never calls back.
        guard done.wait(timeout: .now() + 35) == .success else { throw URLError(.timedOut) }
        return try result.withLock { $0 }.get()
    }

    /// POSTs an RPC envelope, signed by `key` with our signer when given.
    static func rpc(_ service: ServiceProcess, _ envelope: JSONValue, key: Ed25519PrivateKey? = nil) throws -> HTTPReply {
        let body = envelope.serialized()
        var headers = ["Content-Type": "application/json"]
        if let key {
            let signed = try RequestSigner(key: key).sign(method: "POST", authority: "127.0.0.1:\(service.port)", path: "/rpc",
                                                          body: body, created: Timestamp(seconds: Int64(Date().timeIntervalSince1970)))
            for f in signed.fields { headers[f.name] = f.value }
        }
        return try request("POST", service.url + "/rpc", body: body, headers: headers)
    }

    static func envelope(_ command: JSONValue, key: Ed25519PrivateKey?) -> JSONValue {
        var o: JSONValue = ["version": 1, "request": command]
        if let key, case .object(var obj) = o {
            obj["purchaseKey"] = .string(key.publicKey.purchaseKeyText)
            o = .object(obj)
        }
        return o
    }
}

/// The independent Python client (requests + http-message-signatures).
enum PythonClient {
    struct Case: Encodable {
        var url: String
        var body: String
        var seed_hex: String?
        var sign = true
        var tamper = false
    }

    struct Reply: Decodable {
        let status: Int
        let body: String
        let purchase_key: String
        let retry_after: String?
        let content_type: String?
        var response: RPCResponse? { (try? JSONValue.parse(body)).flatMap { try? RPCResponse(json: $0) } }
    }

    static func send(_ cases: [Case]) throws -> [Reply] {
        struct In: Encodable { let cases: [Case] }
        struct Out: Decodable { let cases: [Reply] }
        let out = try PeerPython.run(script: "e2e_client.py", input: try JSONEncoder().encode(In(cases: cases)))
        return try JSONDecoder().decode(Out.self, from: out).cases
    }
}

/// The independent BBS verifier (pyblst): one verdict per credential.
enum BBSPeer {
    static func verify(publicKey: String, credentials: [JSONValue]) throws -> [String] {
        let input: JSONValue = ["publicKey": .string(publicKey), "credentials": .array(credentials)]
        let out = try PeerPython.run(script: "bbs_peer.py", input: Data(input.serialized()))
        return try JSONDecoder().decode([String].self, from: out)
    }
}

extension RPCResponse {
    var credential: BadgeCredential? {
        if case .badgeCredential(let c, _, _, _) = self { return c }
        return nil
    }
    var statement: Statement? {
        switch self {
        case .badgeCredential(_, let s, _, _): return s
        case .badgeCatalog(_, let s): return s
        default: return nil
        }
    }
}
