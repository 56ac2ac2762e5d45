import JSON
import Schema

/// Systematic mutations of a JSON document for negative and differential tests: at every
/// position, the value removed (object members), replaced by each JSON type, and an extra
/// member added to every object.
enum Mutations {
    static let replacements: [JSONValue] = [
        .null, true, 0, -1, 1.5, 256, 65536, 4_294_967_296, "", "x", "2026-13-01T00:00:00Z", [], [:],
    ]

    static func all(of document: JSONValue) -> [JSONValue] {
        var out: [JSONValue] = []
        mutate(document, rebuild: { $0 }, into: &out)
        return out
    }

    /// `rebuild` puts a replacement for `value` back into the whole document.
    private static func mutate(_ value: JSONValue, rebuild: (JSONValue) -> JSONValue, into out: inout [JSONValue]) {
        for r in replacements where r != value { out.append(rebuild(r)) }
        switch value {
        case .object(let o):
            var extra = o
            extra["unexpectedMember"] = 1
            out.append(rebuild(.object(extra)))
            for m in o {
                var removed = o
                removed[m.key] = nil
                out.append(rebuild(.object(removed)))
                mutate(m.value, rebuild: { new in
                    var changed = o
                    changed[m.key] = new
                    return rebuild(.object(changed))
                }, into: &out)
            }
        case .array(let items):
            if !items.isEmpty { out.append(rebuild(.array(Array(items.dropLast())))) }
            for (i, item) in items.enumerated() {
                mutate(item, rebuild: { new in
                    var changed = items
                    changed[i] = new
                    return rebuild(.array(changed))
                }, into: &out)
            }
        default:
            break
        }
    }
}
