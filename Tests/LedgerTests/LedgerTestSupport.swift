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

/// Ledger rows of an example document's `statement.entries` (reference/examples).
enum ExampleDocument {
    static func load(_ name: String) throws -> [String: Any] {
        let data = try Repository.referenceData("examples/\(name)")
        let wrapper = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        return wrapper["document"] as! [String: Any]
    }

    static func entries(_ document: [String: Any]) -> [LedgerEntry] {
        let statement = document["statement"] as! [String: Any]
        return (statement["entries"] as! [[String: Any]]).map(entry)
    }

    static func previousEntryId(_ document: [String: Any]) -> String? {
        (document["statement"] as! [String: Any])["previousEntryId"] as? String
    }

    static func expiry(_ document: [String: Any]) -> Timestamp? {
        guard let credential = document["credential"] as? [String: Any] else { return nil }
        return utc((credential["badgeInfo"] as! [String: Any])["badgeExpiry"] as! String)
    }

    static func badgeType(_ document: [String: Any]) -> BadgeType? {
        guard let credential = document["credential"] as? [String: Any] else { return nil }
        return BadgeType((credential["badgeInfo"] as! [String: Any])["badgeType"] as! String)
    }

    static func entry(_ json: [String: Any]) -> LedgerEntry {
        let type = json["entryType"] as! [String: Any]
        let entryType: LedgerEntryType
        if type["type"] as! String == "credit" {
            let c = type["credit"] as! [String: Any]
            switch c["type"] as! String {
            case "payment": entryType = .credit(.payment(invoiceId: c["invoiceId"] as? String))
            case "code": entryType = .credit(.code)
            case "charge": entryType = .credit(.charge(chargeId: c["chargeId"] as! String))
            case "support": entryType = .credit(.support)
            case "transferIn": entryType = .credit(.transferIn(fromPurchaseKey: c["fromPurchaseKey"] as! String))
            case "opening": entryType = .credit(.opening)
            case let other: fatalError("unknown credit \(other)")
            }
        } else {
            let d = type["debit"] as! [String: Any]
            switch d["type"] as! String {
            case "refund": entryType = .debit(.refund)
            case "upgrade": entryType = .debit(.upgrade(toPurchaseKey: d["toPurchaseKey"] as! String))
            case "transferOut": entryType = .debit(.transferOut(toPurchaseKey: d["toPurchaseKey"] as! String))
            case "support": entryType = .debit(.support)
            case "badge": entryType = .debit(.badge)
            case "lapse": entryType = .debit(.lapse)
            case let other: fatalError("unknown debit \(other)")
            }
        }
        return LedgerEntry(entryId: json["entryId"] as! String, changeMonths: json["changeMonths"] as! Int,
                           balanceMonths: json["balanceMonths"] as! Int,
                           balanceStartTs: utc(json["balanceStartTs"] as! String),
                           balanceAnchorTs: utc(json["balanceAnchorTs"] as! String),
                           balanceBadgeType: BadgeType(json["balanceBadgeType"] as! String),
                           wasPausedSince: (json["wasPausedSince"] as? String).map(utc),
                           createdAt: utc(json["createdAt"] as! String), entryType: entryType)
    }
}
