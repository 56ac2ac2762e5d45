import BadgeCore
import Handlers
import Testing

/// The unsigned catalog is the one answer an event loop may give, and only from memory.
@Suite struct UnsignedCatalogTests {
    let body = Array(#"{"version":1,"request":{"type":"getBadgeCatalog"}}"#.utf8)

    @Test func answeredFromMemoryOnlyWhileTheCacheIsFreshByTheInjectedClock() throws {
        let h = try Harness()
        let service = BadgeService(store: h.store, issuer: h.issuer, clock: h.clock.function,
                                   configuration: .init(catalogCacheSeconds: 60))
        #expect(service.answerFromMemory(body: body) == nil, "nothing cached yet: that needs the database")
        let read = service.handle(body: body, caller: .anonymous)
        #expect(read.result == "ok" && read.command == "getBadgeCatalog")
        let cached = try #require(service.answerFromMemory(body: body))
        #expect(cached.body == read.body)

        let loaded = h.clock.now
        h.clock.now = Timestamp(seconds: loaded.seconds + 59)
        #expect(service.answerFromMemory(body: body) != nil)
        h.clock.now = Timestamp(seconds: loaded.seconds + 60)
        #expect(service.answerFromMemory(body: body) == nil, "60 s of the injected clock later the cache is stale")
        h.clock.now = Timestamp(seconds: loaded.seconds - 1)
        #expect(service.answerFromMemory(body: body) == nil, "a clock that went back does not keep it fresh")
    }

    @Test func refusalsOfUnsignedRequestsNeedNoDatabase() throws {
        let h = try Harness()
        let malformed = try #require(h.service.answerFromMemory(body: Array("{".utf8)))
        #expect(malformed.error == .badRequest)
        let unsignedIssue = Array(#"{"version":1,"request":{"type":"pauseBadge"},"purchaseKey":"x"}"#.utf8)
        let refused = try #require(h.service.answerFromMemory(body: unsignedIssue))
        #expect(refused.error == .badRequest)
    }
}
