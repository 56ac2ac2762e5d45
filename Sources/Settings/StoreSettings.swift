/// The settings of one store or payment provider section. A section that is present (even
/// empty) configures its provider; an absent one answers `provider_not_configured`.
public protocol StoreSettings: Sendable, Equatable {
    /// The INI section, also the provider's name in the protocol (`apple`, `google`, …).
    static var section: String { get }
    /// The section's keys, in the order the README lists them.
    static var keys: [StoreKey<Self>] { get }
    /// No key set yet.
    init()
}

/// One key of a store section: its name, how its text is read, how it is shown.
public struct StoreKey<Store: StoreSettings>: Sendable {
    public let name: String
    /// Masked by `config check` and never echoed in an error.
    public let isSecret: Bool
    /// A value refused is not echoed in the error (a secret pasted under the wrong key).
    public var hidesRefusedValue = false
    /// As ``ConfigurationKey/describedDefault``: nil when the value an empty section shows is the default.
    public var describedDefault: KeyDefault?
    public let read: @Sendable (inout Store, String) throws(SettingRejection) -> Void
    public let show: @Sendable (Store) -> String?

    /// A key read by `read` and shown by `show` (nil: unset).
    public init(_ name: String, isSecret: Bool = false,
                read: @escaping @Sendable (inout Store, String) throws(SettingRejection) -> Void,
                show: @escaping @Sendable (Store) -> String?) {
        self.name = name
        self.isSecret = isSecret
        self.read = read
        self.show = show
    }

    /// This key with its default described as `described`.
    public func defaulting(_ described: KeyDefault) -> StoreKey {
        var key = self
        key.describedDefault = described
        return key
    }

    /// Any text.
    public static func text(_ name: String, _ property: any SendableKeyPath<Store, String?>) -> StoreKey {
        StoreKey(name, read: { s, v in s[keyPath: property] = v }, show: { $0[keyPath: property] })
    }

    /// A secret (API key, webhook secret): masked wherever it is shown.
    public static func secret(_ name: String, _ property: any SendableKeyPath<Store, String?>) -> StoreKey {
        StoreKey(name, isSecret: true, read: { s, v in s[keyPath: property] = v }, show: { $0[keyPath: property] })
    }

    /// A secret whose shape is known (a Stripe key's prefix): `validate` throws what it expected,
    /// never echoing the value.
    public static func secret(_ name: String, _ property: any SendableKeyPath<Store, String?>,
                              validate: @escaping @Sendable (String) throws(SettingRejection) -> Void) -> StoreKey {
        StoreKey(name, isSecret: true, read: { s, v throws(SettingRejection) in
            try validate(v)
            s[keyPath: property] = v
        }, show: { $0[keyPath: property] })
    }

    /// An absolute `http://` or `https://` URL with a host (a page the buyer is sent to, an
    /// endpoint); `defaultURL` is the one used while it is unset, shown as its default.
    public static func url(_ name: String, _ property: any SendableKeyPath<Store, String?>, default defaultURL: String? = nil) -> StoreKey {
        StoreKey(name, read: { s, v throws(SettingRejection) in
            try URLShape.absolute(v)
            s[keyPath: property] = v
        }, show: { $0[keyPath: property] ?? defaultURL })
    }

    /// A base URL the service appends API paths to: an absolute `http(s)://` URL without a query
    /// or fragment, and without `apiPath` (what the service appends itself, e.g. `/api/v1`).
    public static func baseURL(_ name: String, _ property: any SendableKeyPath<Store, String?>, default defaultURL: String? = nil,
                               apiPath: String? = nil) -> StoreKey {
        StoreKey(name, read: { s, v throws(SettingRejection) in
            try URLShape.base(v, apiPath: apiPath)
            s[keyPath: property] = v
        }, show: { $0[keyPath: property] ?? defaultURL })
    }

    /// One of `allowed`; `refused` names values turned down on purpose, with the reason.
    public static func choice(_ name: String, _ property: any SendableKeyPath<Store, String>, allowed: [String],
                              refused: [String: String] = [:]) -> StoreKey {
        StoreKey(name, read: { s, v throws(SettingRejection) in
            if let why = refused[v] { throw SettingRejection(expected: "one of \(allowed.joined(separator: ", ")) (\(v): \(why))") }
            guard allowed.contains(v) else { throw SettingRejection(expected: "one of \(allowed.joined(separator: ", "))") }
            s[keyPath: property] = v
        }, show: { $0[keyPath: property] })
    }

    /// Whole seconds within `range` (`10`, `10s`, `2m`).
    public static func seconds(_ name: String, _ property: any SendableKeyPath<Store, Int>, in range: ClosedRange<Int>) -> StoreKey {
        StoreKey(name, read: { s, v throws(SettingRejection) in
            s[keyPath: property] = try ValueSyntax.duration(v, unit: .seconds, in: range)
        }, show: { String($0[keyPath: property]) })
    }

    /// Bytes within `range` (`65536`, `64KiB`, `1MiB`).
    public static func size(_ name: String, _ property: any SendableKeyPath<Store, Int>, in range: ClosedRange<Int>) -> StoreKey {
        StoreKey(name, read: { s, v throws(SettingRejection) in
            s[keyPath: property] = try ValueSyntax.size(v, in: range)
        }, show: { String($0[keyPath: property]) })
    }
}

extension StoreSettings {
    /// The keys the key table marks required that are unset or empty, in the table's order:
    /// the one required-key check of a section.
    public var missingRequiredKeys: [String] {
        Self.keys.filter { $0.describedDefault == .required && ($0.show(self) ?? "").isEmpty }.map(\.name)
    }

    /// Whether `other` holds the same settings (sections are kept as `any StoreSettings`).
    public func isEqual(to other: any StoreSettings) -> Bool { (other as? Self) == self }
}

/// The timeout and response cap every outside call of a payment provider has.
public enum StoreCallLimits {
    public static let defaultTimeoutSeconds = 10
    public static let timeoutRange = 1...120
    public static let defaultMaxResponseBytes = 1 << 20
    public static let maxResponseBytesRange = 1024...(64 << 20)
}
