import JSON
import Schema
import Testing

@Suite struct RecentRequestsTests {
    let catalog = Array(#"{"version":1,"request":{"type":"getBadgeCatalog"}}"#.utf8)

    func decoded(_ body: [UInt8]) throws -> RPCRequest { try BadgeRPCSchema.shared.decodeRequest(body) }

    @Test func keepsWhatABodyDecodedToByItsExactBytes() throws {
        let recent = RecentRequests()
        #expect(recent.request(for: catalog) == nil)
        recent.remember(try decoded(catalog), for: catalog)
        #expect(recent.request(for: catalog) == (try decoded(catalog)))
        // Another spelling of the same request is another body.
        let spaced = Array(#"{"version":1, "request":{"type":"getBadgeCatalog"}}"#.utf8)
        #expect(recent.request(for: spaced) == nil)
    }

    @Test func isBoundedInBodiesAndInTheirSize() throws {
        let recent = RecentRequests(capacity: 4, maxBodyBytes: 64)
        for i in 0..<10 {
            let body = Array(#"{"version":1,"request":{"type":"getBadgeCatalog"}\#(String(repeating: " ", count: i))}"#.utf8)
            recent.remember(try decoded(body), for: body)
            #expect(recent.count <= 4)
            #expect(recent.request(for: body) != nil)
        }
        let long = Array((#"{"version":1,"request":{"type":"getBadgeCatalog"}"# + String(repeating: " ", count: 64) + "}").utf8)
        recent.remember(try decoded(long), for: long)
        #expect(recent.request(for: long) == nil)
    }
}
