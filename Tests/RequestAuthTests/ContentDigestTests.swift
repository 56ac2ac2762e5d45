import BadgeCore
import Crypto
import RequestAuth
import Testing

@Suite struct ContentDigestTests {
    struct Vector: Sendable, CustomStringConvertible {
        let content: [UInt8]
        let field: String
        var description: String { field }
    }

    static func vectors() throws -> [Vector] {
        let list = try #require(try RFC9421Vectors().object("content_digest_rfc9530") as? [[String: Any]])
        return try list.map { entry in
            let content = try #require(entry["content"] as? String)
            let length = try #require(entry["length"] as? Int)
            #expect(content.utf8.count == length)
            return Vector(content: Array(content.utf8), field: try #require(entry["field"] as? String))
        }
    }

    // RFC 9530 examples: each digest matches its content; sha-512-only fields need our sha-256 beside them.
    @Test func rfc9530Vectors() throws {
        let vectors = try Self.vectors()
        #expect(vectors.count == 5)
        for v in vectors {
            let ours = ContentDigest.fieldValue(for: v.content)
            if v.field.hasPrefix("sha-256=") {
                #expect(ours == v.field)
                #expect(throws: Never.self) { try ContentDigest.check(field: v.field, body: v.content) }
            } else {
                #expect(throws: RequestAuthFailure.contentDigestWithoutSHA256) { try ContentDigest.check(field: v.field, body: v.content) }
                #expect(throws: Never.self) { try ContentDigest.check(field: v.field + ", " + ours, body: v.content) }
            }
            var tampered = v.content
            tampered.append(0x20)
            #expect(throws: RequestAuthFailure.contentDigestMismatch) {
                try ContentDigest.check(field: ours + (v.field.hasPrefix("sha-512") ? ", " + v.field : ""), body: tampered)
            }
        }
    }

    @Test(arguments: [
        ("sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:", nil as RequestAuthFailure?),
        ("md5=:AAAA:, sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:, unixsum=3", nil),  // unknown algorithms ignored
        ("sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:;p=1", nil),  // parameters ignored
        ("sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:, sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:", nil),
        ("sha-512=:AAAA:", .contentDigestWithoutSHA256),
        ("", .contentDigestWithoutSHA256),
        ("sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:", .contentDigestMismatch),
        ("sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:, sha-512=:YMAam51Jz/jOATT6/zvHrLVgOYTGFy1d6GJiOHTohq4yP+pgk4vf2aCsyRZOtw8MjkM7iw7yZ/WkppmM44T3qg==:", .contentDigestMismatch),
        ("sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:, sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:", .contentDigestMalformed),
        ("sha-256=:AAAA:", .contentDigestMalformed),  // wrong length
        ("sha-256=\"X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=\"", .contentDigestMalformed),
        ("sha-256=(:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:)", .contentDigestMalformed),
        ("sha-256=X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=", .contentDigestMalformed),
        ("SHA-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:", .contentDigestMalformed),
    ])
    func check(field: String, expected: RequestAuthFailure?) {
        let body = Array(#"{"hello": "world"}"#.utf8)
        var outcome: RequestAuthFailure?
        do { try ContentDigest.check(field: field, body: body) } catch { outcome = error }
        #expect(outcome == expected)
    }

    @Test func missingField() {
        #expect(throws: RequestAuthFailure.contentDigestMissing) { try ContentDigest.check(field: nil, body: []) }
    }

    @Test func emptyBody() throws {
        #expect(ContentDigest.fieldValue(for: []) == "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:")
        try ContentDigest.check(field: ContentDigest.fieldValue(for: []), body: [])
    }
}
