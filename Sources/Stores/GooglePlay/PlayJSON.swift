import BadgeCore
import JSON

/// Field reading for Play's answers: every mistyped field is a reason naming the field, since an
/// answer this service cannot read is its own problem (internal), never Play's verdict.
struct PlayJSONObject {
    let object: JSONObject
    let what: String

    init(_ body: [UInt8], what: String) throws(PlayRefusal) {
        guard let value = try? JSONValue.parse(body) else { throw .internal("\(what) answer is not JSON") }
        guard case .object(let object) = value else { throw .internal("\(what) answer is not a JSON object") }
        self.init(object, what: what)
    }

    init(_ object: JSONObject, what: String) {
        self.object = object
        self.what = what
    }

    func has(_ key: String) -> Bool { object[key] != nil && object[key] != .null }

    func string(_ key: String) throws(PlayRefusal) -> String? {
        guard let value = object[key], value != .null else { return nil }
        guard let text = value.stringValue else { throw .internal("\(what) field \(key) is not a string") }
        return text
    }

    /// An int32/int64 field, which Google's JSON sends as a number or as a decimal string.
    func integer(_ key: String) throws(PlayRefusal) -> Int? {
        guard let value = object[key], value != .null else { return nil }
        if let n = value.numberValue?.exactInt { return n }
        if let text = value.stringValue, let n = Int(text), text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 || $0 == 0x2d }) { return n }
        throw .internal("\(what) field \(key) is not an integer")
    }

    func timestamp(_ key: String) throws(PlayRefusal) -> Timestamp? {
        guard let text = try string(key) else { return nil }
        guard let t = RFC3339.parse(text) else { throw .internal("\(what) field \(key) is not an RFC 3339 time") }
        return t
    }

    func nested(_ key: String) throws(PlayRefusal) -> PlayJSONObject? {
        guard let value = object[key], value != .null else { return nil }
        guard let inner = value.objectValue else { throw .internal("\(what) field \(key) is not an object") }
        return PlayJSONObject(inner, what: "\(what) \(key)")
    }

    func array(_ key: String) throws(PlayRefusal) -> [PlayJSONObject] {
        guard let value = object[key], value != .null else { return [] }
        guard let items = value.arrayValue else { throw .internal("\(what) field \(key) is not an array") }
        var result: [PlayJSONObject] = []
        for (i, item) in items.enumerated() {
            guard let inner = item.objectValue else { throw .internal("\(what) \(key)[\(i)] is not an object") }
            result.append(PlayJSONObject(inner, what: "\(what) \(key)[\(i)]"))
        }
        return result
    }
}
