import BadgeCore
import Foundation
import Ledger
import TestSupport

/// A UTC instant from its parts.
func at(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0,
        nanoseconds: Int32 = 0) -> Timestamp {
    Timestamp(CivilDate(year: year, month: month, day: day), hour: hour, minute: minute, second: second,
              nanoseconds: nanoseconds)
}

/// An instant from RFC 3339 text (test data only; traps on malformed text).
func utc(_ text: String) -> Timestamp {
    guard let t = RFC3339.parse(text) else { fatalError("bad timestamp \(text)") }
    return t
}

/// Entry ids for tests: `e1`, `e2`, … or a fixed list (then `e<n>` once it runs out).
final class EntryIds {
    private var given: [String]
    private(set) var count = 0

    init(_ given: [String] = []) { self.given = given }

    func next() -> String {
        count += 1
        return given.isEmpty ? "e\(count)" : given.removeFirst()
    }
}

/// SplitMix64: a tiny, seedable, reproducible generator (Steele, Lea, Flood 2014).
struct SplitMix64 {
    private(set) var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `range` (the tiny modulo bias is irrelevant for test inputs).
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }

    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }

    mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }
}

/// Ledger rows of an example document's `statement.entries` (Tests/Fixtures/examples).
enum ExampleDocument {
    static func load(_ name: String) throws -> [String: Any] {
        let data = try Repository.fixtureData("examples/\(name)")
        let wrapper = try JSONSerialization.jsonObject(with: data)
        return try field(wrapper, "document", [String: Any].self)
    }

    static func entries(_ document: [String: Any]) throws -> [LedgerEntry] {
        let statement = try field(document, "statement", [String: Any].self)
        return try field(statement, "entries", [[String: Any]].self).map(entry)
    }

    static func previousEntryId(_ document: [String: Any]) throws -> String? {
        try field(document, "statement", [String: Any].self)["previousEntryId"] as? String
    }

    static func expiry(_ document: [String: Any]) throws -> Timestamp? {
        guard let credential = document["credential"] as? [String: Any] else { return nil }
        return utc(try field(try field(credential, "badgeInfo", [String: Any].self), "badgeExpiry", String.self))
    }

    static func badgeType(_ document: [String: Any]) throws -> BadgeType? {
        guard let credential = document["credential"] as? [String: Any] else { return nil }
        return BadgeType(try field(try field(credential, "badgeInfo", [String: Any].self), "badgeType", String.self))
    }

    static func entry(_ json: [String: Any]) throws -> LedgerEntry {
        let type = try field(json, "entryType", [String: Any].self)
        let entryType: LedgerEntryType
        if try field(type, "type", String.self) == "credit" {
            let c = try field(type, "credit", [String: Any].self)
            switch try field(c, "type", String.self) {
            case "payment": entryType = .credit(.payment(invoiceId: c["invoiceId"] as? String))
            case "code": entryType = .credit(.code)
            case "charge": entryType = .credit(.charge(chargeId: try field(c, "chargeId", String.self)))
            case "support": entryType = .credit(.support)
            case "transferIn": entryType = .credit(.transferIn(fromPurchaseKey: try field(c, "fromPurchaseKey", String.self)))
            case "opening": entryType = .credit(.opening)
            case let other: throw FixtureShapeError("unknown credit \(other)")
            }
        } else {
            let d = try field(type, "debit", [String: Any].self)
            switch try field(d, "type", String.self) {
            case "refund": entryType = .debit(.refund)
            case "upgrade": entryType = .debit(.upgrade(toPurchaseKey: try field(d, "toPurchaseKey", String.self)))
            case "transferOut": entryType = .debit(.transferOut(toPurchaseKey: try field(d, "toPurchaseKey", String.self)))
            case "support": entryType = .debit(.support)
            case "badge": entryType = .debit(.badge)
            case "lapse": entryType = .debit(.lapse)
            case let other: throw FixtureShapeError("unknown debit \(other)")
            }
        }
        return LedgerEntry(entryId: try field(json, "entryId", String.self), changeMonths: try field(json, "changeMonths", Int.self),
                           balanceMonths: try field(json, "balanceMonths", Int.self),
                           balanceStartTs: utc(try field(json, "balanceStartTs", String.self)),
                           balanceAnchorTs: utc(try field(json, "balanceAnchorTs", String.self)),
                           balanceBadgeType: BadgeType(try field(json, "balanceBadgeType", String.self)),
                           wasPausedSince: (json["wasPausedSince"] as? String).map(utc),
                           createdAt: utc(try field(json, "createdAt", String.self)), entryType: entryType)
    }
}
