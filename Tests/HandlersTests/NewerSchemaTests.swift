import BadgeCore
import Crypto
import Foundation
import Ledger
import Storage
import TestSupport
import Testing

/// Issue 33: while PostgreSQL instances roll, the release before keeps serving a schema the new
/// release expanded. This binary plays "the release before": its reads and writes — a code made,
/// redeemed, the next month issued, the signed statement, a pause — run against its schema plus
/// an additive step it does not know, on both backends.
@Suite struct NewerSchemaTests {
    let dir = TemporaryDirectory("newer-schema")

    @Test(arguments: StoreBackend.allCases) func thisBinaryServesASchemaANewerReleaseExpanded(_ backend: StoreBackend) throws {
        let database = try backend.makeDatabase(in: dir)
        let newer = SQLiteDatabase.latestSchemaVersion + 1
        try database.execute(NewerReleaseStep.additive(version: newer))
        let h = try Harness(at: at(2026, 3, 10), over: try database.open())

        let key = Ed25519PrivateKey()
        let redeemed = h.redeem(try h.code(months: 3), by: key)
        #expect(redeemed.error == nil && redeemed.credential != nil, "\(redeemed.response)")
        #expect(redeemed.statement?.entries.map(\.entryType) == [.credit(.code), .debit(.badge)])
        let last = try #require(redeemed.statement?.entries.last)
        #expect(h.redeem(try h.code(months: 1), by: Ed25519PrivateKey()).error == nil)

        h.clock.now = at(2026, 4, 10)
        let issued = h.issue(by: key, asserting: last)
        #expect(issued.credential != nil && issued.statement?.entries.map(\.entryType) == [.debit(.badge)], "\(issued.response)")
        let catalog = h.send(.getBadgeCatalog, by: key)
        #expect(catalog.statement?.entries.count == 3 && catalog.statement?.entries.last == issued.statement?.entries.last)
        h.clock.now = at(2026, 4, 20)
        #expect(h.send(.pauseBadge, by: key).error == nil)
        h.clock.now = at(2026, 6, 1)
        let resumed = h.issue(by: key, asserting: try #require(h.ledger(of: key).last))
        #expect(resumed.error == nil && resumed.credential != nil, "\(resumed.response)")

        let ledger = try h.ledger(of: key)
        #expect(checkLedger(ledger, purchaseBadgeType: .supporter) == nil)
        #expect(ledger.filter { $0.entryType == .credit(.code) }.count == 1)
        #expect(h.internalErrors.withLock { $0 }.isEmpty)
        // the newer release's columns took NULL and their default under this binary's inserts
        let store = try #require(h.store as? any OperatedStore)
        #expect(try blobs(store, "SELECT master_key FROM badge_purchases WHERE display_name_\(newer) IS NULL").count == 2)
        #expect(try blobs(store, "SELECT code_hash FROM badge_codes WHERE campaign_\(newer) = ''").count == 2)
        #expect(try store.schemaVersion() == newer)
    }

    func blobs(_ store: any OperatedStore, _ sql: String) throws -> [[UInt8]] {
        switch store {
        case let s as SQLiteBadgeStore: return try s.database.readBlobsForTesting(sql)
        case let p as PostgresBadgeStore: return try p.database.readBlobsForTesting(sql)
        default: throw StorageError.corrupt("no raw SQL on \(type(of: store))")
        }
    }
}

