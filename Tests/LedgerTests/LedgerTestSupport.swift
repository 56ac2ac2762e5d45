import BadgeCore
import Foundation
import JSON
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

/// Ledger rows of an example document's `statement.entries` (Tests/Fixtures/examples), read with
/// the JSON module's reader rather than Schema's wire models, so these tests stay independent
/// of the wire coding; a document without the expected shape fails the test, naming the path.
enum ExampleDocument {
    static func load(_ name: String) throws -> JSONObjectReader {
        let data = try Repository.fixtureData("examples/\(name)")
        return try JSONObjectReader(try JSONValue.parse(Array(data))).nested("document")
    }

    static func entries(_ document: JSONObjectReader) throws -> [LedgerEntry] {
        let statement = try document.nested("statement")
        guard case .array(let items) = try statement.value("entries") else {
            throw statement.fail("entries", "expected an array")
        }
        return try items.enumerated().map { i, item in
            try entry(try JSONObjectReader(item, at: statement.path + ["entries", String(i)]))
        }
    }

    static func previousEntryId(_ document: JSONObjectReader) throws -> String? {
        try document.nested("statement").optionalString("previousEntryId")
    }

    static func expiry(_ document: JSONObjectReader) throws -> Timestamp? {
        guard document.has("credential") else { return nil }
        return utc(try document.nested("credential").nested("badgeInfo").string("badgeExpiry"))
    }

    static func badgeType(_ document: JSONObjectReader) throws -> BadgeType? {
        guard document.has("credential") else { return nil }
        return BadgeType(try document.nested("credential").nested("badgeInfo").string("badgeType"))
    }

    static func entry(_ json: JSONObjectReader) throws -> LedgerEntry {
        let type = try json.nested("entryType")
        let entryType: LedgerEntryType
        if try type.string("type") == "credit" {
            let c = try type.nested("credit")
            switch try c.string("type") {
            case "payment": entryType = .credit(.payment(invoiceId: try c.optionalString("invoiceId")))
            case "code": entryType = .credit(.code)
            case "charge": entryType = .credit(.charge(chargeId: try c.string("chargeId")))
            case "support": entryType = .credit(.support)
            case "transferIn": entryType = .credit(.transferIn(fromPurchaseKey: try c.string("fromPurchaseKey")))
            case "opening": entryType = .credit(.opening)
            case let other: throw c.unknownTag(other)
            }
        } else {
            let d = try type.nested("debit")
            switch try d.string("type") {
            case "refund": entryType = .debit(.refund)
            case "upgrade": entryType = .debit(.upgrade(toPurchaseKey: try d.string("toPurchaseKey")))
            case "transferOut": entryType = .debit(.transferOut(toPurchaseKey: try d.string("toPurchaseKey")))
            case "support": entryType = .debit(.support)
            case "badge": entryType = .debit(.badge)
            case "lapse": entryType = .debit(.lapse)
            case let other: throw d.unknownTag(other)
            }
        }
        return LedgerEntry(entryId: try json.string("entryId"), changeMonths: try json.int("changeMonths"),
                           balanceMonths: try json.int("balanceMonths"),
                           balanceStartTs: utc(try json.string("balanceStartTs")),
                           balanceAnchorTs: utc(try json.string("balanceAnchorTs")),
                           balanceBadgeType: BadgeType(try json.string("balanceBadgeType")),
                           wasPausedSince: try json.optionalString("wasPausedSince").map(utc),
                           createdAt: utc(try json.string("createdAt")), entryType: entryType)
    }
}
