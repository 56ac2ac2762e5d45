import BadgeCore
import JSON

/// Typed reads of a verified payload's members. Apple's libraries coerce mistyped fields;
/// the spec answers internal for a missing or mistyped one, so every read here is strict.
struct PayloadFields {
    let object: JSONObject
    /// What the payload is, for the reason ("transaction", "renewal info").
    let what: String

    func string(_ key: String) throws(AppStoreRefusal) -> String {
        guard let value = try optionalString(key) else { throw .internal("\(what) has no \(key)") }
        return value
    }

    func optionalString(_ key: String) throws(AppStoreRefusal) -> String? {
        guard let value = object[key], value != .null else { return nil }
        guard let text = value.stringValue else { throw .internal("\(what) \(key) is not a string") }
        return text
    }

    func integer(_ key: String) throws(AppStoreRefusal) -> Int {
        guard let value = try optionalInteger(key) else { throw .internal("\(what) has no \(key)") }
        return value
    }

    func optionalInteger(_ key: String) throws(AppStoreRefusal) -> Int? {
        guard let value = object[key], value != .null else { return nil }
        guard let n = value.numberValue?.exactInt else { throw .internal("\(what) \(key) is not an integer") }
        return n
    }

    func bool(_ key: String) throws(AppStoreRefusal) -> Bool? {
        guard let value = object[key], value != .null else { return nil }
        guard case .bool(let b) = value else { throw .internal("\(what) \(key) is not a boolean") }
        return b
    }

    /// A time in milliseconds since the epoch, as Apple writes every date.
    func time(_ key: String) throws(AppStoreRefusal) -> Timestamp {
        guard let value = try optionalTime(key) else { throw .internal("\(what) has no \(key)") }
        return value
    }

    func optionalTime(_ key: String) throws(AppStoreRefusal) -> Timestamp? {
        guard let ms = try optionalInteger(key) else { return nil }
        guard ms >= 0 else { throw .internal("\(what) \(key) is negative") }
        return Timestamp(milliseconds: Int64(ms))
    }

    /// A value of a closed set; one this service does not know is internal.
    func known<T: RawRepresentable>(_ key: String, as: T.Type) throws(AppStoreRefusal) -> T where T.RawValue == String {
        let raw = try string(key)
        guard let value = T(rawValue: raw) else { throw .internal("\(what) \(key) '\(raw)' is not one this service knows") }
        return value
    }
}

extension Timestamp {
    /// The instant `ms` (not negative) milliseconds after the epoch.
    init(milliseconds ms: Int64) {
        self.init(seconds: ms / 1000, nanoseconds: Int32(ms % 1000) * 1_000_000)
    }
}
