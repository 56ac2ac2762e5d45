import BadgeCore
import Crypto
import Foundation
import RequestAuth
import TestSupport

/// `Tests/Fixtures/rfc9421/vectors.json`, read strictly: a missing file or field fails the test.
struct RFC9421Vectors {
    struct Missing: Error, CustomStringConvertible {
        let path: String
        var description: String { "rfc9421-vectors.json: missing \(path)" }
    }

    let json: [String: Any]

    init() throws {
        let data = try Repository.fixtureData("rfc9421/vectors.json")
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw Missing(path: "root") }
        json = object
    }

    func object(_ path: String...) throws -> Any {
        var node: Any = json
        for key in path {
            guard let dict = node as? [String: Any], let next = dict[key] else { throw Missing(path: path.joined(separator: ".")) }
            node = next
        }
        return node
    }

    func string(_ path: String...) throws -> String {
        let node = try path.reduce(json as Any) { node, key in
            guard let dict = node as? [String: Any], let next = dict[key] else { throw Missing(path: path.joined(separator: ".")) }
            return next
        }
        guard let s = node as? String else { throw Missing(path: path.joined(separator: ".")) }
        return s
    }

    /// RFC 9421 B.1.4 `test-key-ed25519`.
    func testKey() throws -> Ed25519PrivateKey {
        guard let seed = Hex.decode(try string("test_key_ed25519", "private_seed_hex")) else { throw Missing(path: "seed") }
        return try Ed25519PrivateKey(seed: seed)
    }

    /// Parses an HTTP/1.1 request of the vectors (CRLF lines) into a ``SignedRequest``.
    static func request(fromHTTP1 text: String, scheme: String = "https") throws -> SignedRequest {
        let parts = text.components(separatedBy: "\r\n\r\n")
        let head = parts[0].components(separatedBy: "\r\n")
        let body = parts.count > 1 ? parts[1...].joined(separator: "\r\n\r\n") : ""
        let requestLine = head[0].split(separator: " ")
        let target = String(requestLine[1])
        let pathAndQuery = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var headers: [(name: String, value: String)] = []
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw Missing(path: "header line \(line)") }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
        }
        let host = headers.first { $0.name.lowercased() == "host" }?.value ?? ""
        return SignedRequest(method: String(requestLine[0]), path: String(pathAndQuery[0]),
                             query: pathAndQuery.count > 1 ? String(pathAndQuery[1]) : nil,
                             authority: host, scheme: scheme, headers: headers, body: Array(body.utf8))
    }
}
