import FuzzSupport
import JSON

/// The JSON parser on any bytes. Beyond not crashing: whatever it accepts serializes to JSON it
/// accepts again as the same value, and serializing that gives the same bytes (a value the
/// parser builds can always be written back, so an echo never emits broken JSON).
///
/// Numbers compare by their `Double`, and an integer stays an integer; a non-integer literal
/// whose nearest `Double` is integral (`1.00000000000000000001`, `2e-400`) is written as that
/// `Double` (`1.0`, `0.0`), which reads back as an integer: a `Double` cannot say otherwise
/// (``JSONNumber``). So the serialization is stable from the second one on.
fuzzMain { bytes in
    guard let value = try? JSONParser().parse(bytes) else { return }
    let text = JSONSerializer.serialize(value)
    guard let again = try? JSONParser().parse(text) else {
        fatalError("serialized JSON does not parse: \(lossyText(text))")
    }
    guard sameValue(value, again) else { fatalError("JSON round trip changed the value: \(lossyText(text))") }
    let second = JSONSerializer.serialize(again)
    guard let third = try? JSONParser().parse(second), JSONSerializer.serialize(third) == second else {
        fatalError("JSON serialization is not stable: \(lossyText(second))")
    }
    for layout in [JSONLayout.spaced, .indented] {
        guard let read = try? JSONParser().parse(value.serialized(layout)), sameValue(value, read) else {
            fatalError("JSON in layout \(layout) does not read back: \(lossyText(text))")
        }
    }
}

func sameValue(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.number(let x), .number(let y)):
        return x.value == y.value && (!x.isInteger || y.isInteger)
    case (.array(let x), .array(let y)):
        return x.count == y.count && zip(x, y).allSatisfy(sameValue)
    case (.object(let x), .object(let y)):
        return x.count == y.count && x.allSatisfy { member in y[member.key].map { sameValue(member.value, $0) } ?? false }
    default:
        return a == b
    }
}
