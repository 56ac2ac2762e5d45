import JSON
import Schema
import TestSupport

/// Random instances valid against a JTD schema (given as JSON), for differential tests.
/// Deterministic: a SplitMix64 generator with a fixed seed.
struct InstanceGenerator {
    let definitions: JSONObject
    var random: SplitMix64

    init(schema: JSONValue, seed: UInt64) {
        definitions = schema["definitions"]?.objectValue ?? JSONObject()
        random = SplitMix64(seed: seed)
    }

    mutating func next() -> UInt64 { random.next() }
    mutating func pick<T>(_ items: [T]) -> T { random.pick(items) }
    mutating func chance(_ percent: UInt64) -> Bool { random.chance(Int(percent)) }

    static let strings: [String] = ["", "x", "supporter", "SB0C0QSXAQW1N1VSAR00Y3", "é\u{301}", "😀", "a\"b\\c\n", "\u{0}"]
    static let timestamps: [String] = ["2026-04-14T00:00:00Z", "2026-03-10T11:00:00.123Z", "1990-12-31T23:59:60Z",
                                       "2100-01-01T00:00:00+05:30", "2026-04-14t00:00:00z"]
    static let base64url: [String] = ["QEFCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFlaW1xdXl8=",
                                      "MCowBQYDK2VwAyEAebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ="]

    mutating func instance(of schema: JSONValue, depth: Int = 0) -> JSONValue {
        guard case .object(let s) = schema else { return .null }
        if s["nullable"] == true && chance(10) { return .null }
        if let ref = s["ref"]?.stringValue {
            if ref == "base64url" || ref == "purchaseKey" { return .string(pick(Self.base64url)) }
            return instance(of: definitions[ref] ?? [:], depth: depth + 1)
        }
        if let type = s["type"]?.stringValue {
            switch type {
            case "boolean": return .bool(chance(50))
            case "string": return .string(pick(Self.strings))
            case "timestamp": return .string(pick(Self.timestamps))
            case "float32", "float64": return .number(JSONNumber(pick([0, -1.5, 3.25e10])))
            default:
                let ranges: [String: (Int, Int)] = ["int8": (-128, 127), "uint8": (0, 255), "int16": (-32_768, 32_767),
                                                    "uint16": (0, 65_535), "int32": (-2_147_483_648, 2_147_483_647),
                                                    "uint32": (0, 4_294_967_295)]
                let (lo, hi) = ranges[type] ?? (0, 0)
                let choice = next() % 4
                let v = choice == 0 ? lo : choice == 1 ? hi : lo + Int(next() % UInt64(hi - lo + 1))
                return .number(JSONNumber(v))
            }
        }
        if let values = s["enum"]?.arrayValue { return pick(values) }
        if let element = s["elements"] {
            let count = depth > 6 ? 0 : Int(next() % 4)
            return .array((0..<count).map { _ in instance(of: element, depth: depth + 1) })
        }
        if let valueSchema = s["values"] {
            var o = JSONObject()
            for k in 0..<Int(next() % 3) { o["k\(k)"] = instance(of: valueSchema, depth: depth + 1) }
            return .object(o)
        }
        if let tag = s["discriminator"]?.stringValue, let mapping = s["mapping"]?.objectValue, !mapping.isEmpty {
            let variant = pick(mapping.members)
            var o = instance(of: variant.value, depth: depth).objectValue ?? JSONObject()
            o[tag] = .string(variant.key)
            return .object(o)
        }
        if s.contains("properties") || s.contains("optionalProperties") {
            var o = JSONObject()
            for m in s["properties"]?.objectValue ?? JSONObject() { o[m.key] = instance(of: m.value, depth: depth + 1) }
            for m in s["optionalProperties"]?.objectValue ?? JSONObject() where chance(50) {
                o[m.key] = instance(of: m.value, depth: depth + 1)
            }
            return .object(o)
        }
        return pick([.null, true, 1, "x", [], [:]])
    }
}
