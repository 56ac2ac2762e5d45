import HTTPServer
import Settings

/// One key the configuration knows: its section and name, how its text is read, and how its
/// effective value is shown. ``ServiceConfiguration/keys`` lists every one; any other key,
/// section or `BADGE_SERVICE_*` variable is an error.
public struct ConfigurationKey: Sendable {
    /// Why a value was refused: what was expected instead.
    public typealias Rejection = SettingRejection

    public let section: String
    public let name: String
    /// Masked by `config check` and never echoed in an error.
    public let isSecret: Bool
    /// A value refused is not echoed in the error, though the key is shown: `[database] url`,
    /// refused precisely when it holds a password.
    public var hidesRefusedValue = false
    /// The default when the value a fresh configuration shows does not say it all (a value
    /// worked out at start, a key unset until given); nil: that shown value is the default.
    public var describedDefault: KeyDefault?
    let read: @Sendable (inout ServiceConfiguration, String) throws(Rejection) -> Void
    let show: @Sendable (ServiceConfiguration) -> String?
    /// What the key shows when nothing sets it (a store key: in a present, empty section).
    let shownDefault: @Sendable () -> String?

    /// A key read by `read` and shown by `show` (nil: unset).
    public init(section: String, name: String, isSecret: Bool = false,
                read: @escaping @Sendable (inout ServiceConfiguration, String) throws(Rejection) -> Void,
                show: @escaping @Sendable (ServiceConfiguration) -> String?) {
        self.init(section: section, name: name, isSecret: isSecret, read: read, show: show, shownDefault: { show(ServiceConfiguration()) })
    }

    init(section: String, name: String, isSecret: Bool,
         read: @escaping @Sendable (inout ServiceConfiguration, String) throws(Rejection) -> Void,
         show: @escaping @Sendable (ServiceConfiguration) -> String?, shownDefault: @escaping @Sendable () -> String?) {
        self.section = section
        self.name = name
        self.isSecret = isSecret
        self.read = read
        self.show = show
        self.shownDefault = shownDefault
    }

    /// The key's default, as `config check` and the README's table state it: the key table is
    /// the one place it is written (a value's own default is the property's initial value).
    public var defaultValue: KeyDefault {
        describedDefault ?? shownDefault().map(KeyDefault.value) ?? .unset(nil)
    }

    /// This key with its default described as `described`.
    public func defaulting(_ described: KeyDefault) -> ConfigurationKey {
        var key = self
        key.describedDefault = described
        return key
    }

    /// `server.listen`: how ``ServiceConfiguration`` records where a value came from.
    public var id: String { section + "." + name }
    /// `[server] listen`, as messages name it.
    public var label: String { "[\(section)] \(name)" }
    /// `BADGE_SERVICE_RPC_FRONT_TOKEN` for `[rpc] front_token`.
    public var environmentVariable: String { "BADGE_SERVICE_\(section.uppercased())_\(name.uppercased())" }

    // MARK: kinds of keys

    /// An integer within `range`.
    public static func integer(_ section: String, _ name: String, _ property: any SendableKeyPath<ServiceConfiguration, Int>,
                               in range: ClosedRange<Int>) -> ConfigurationKey {
        ConfigurationKey(section: section, name: name, read: { c, text throws(Rejection) in
            c[keyPath: property] = try parseInteger(text, in: range)
        }, show: { String($0[keyPath: property]) })
    }

    /// Whole seconds within `range` (`30`, `30s`, `2m`; ``ValueSyntax/duration(_:unit:in:)``), kept as a `Duration`.
    public static func seconds(_ section: String, _ name: String, _ property: any SendableKeyPath<ServiceConfiguration, Duration>,
                               in range: ClosedRange<Int>) -> ConfigurationKey {
        ConfigurationKey(section: section, name: name, read: { c, text throws(Rejection) in
            c[keyPath: property] = .seconds(try ValueSyntax.duration(text, unit: .seconds, in: range))
        }, show: { String($0[keyPath: property].components.seconds) })
    }

    /// A duration kept as a whole number of `unit` within `range`: a bare number is `unit`, a
    /// suffixed one (`500ms`, `30s`, `2m`, `1h`) is converted exactly.
    public static func duration(_ section: String, _ name: String, _ property: any SendableKeyPath<ServiceConfiguration, Int>,
                                unit: ValueSyntax.TimeUnit, in range: ClosedRange<Int>) -> ConfigurationKey {
        ConfigurationKey(section: section, name: name, read: { c, text throws(Rejection) in
            c[keyPath: property] = try ValueSyntax.duration(text, unit: unit, in: range)
        }, show: { String($0[keyPath: property]) })
    }

    /// Bytes within `range`: a bare number, or one with `KiB`, `MiB` or `GiB`.
    public static func size(_ section: String, _ name: String, _ property: any SendableKeyPath<ServiceConfiguration, Int>,
                            in range: ClosedRange<Int>) -> ConfigurationKey {
        ConfigurationKey(section: section, name: name, read: { c, text throws(Rejection) in
            c[keyPath: property] = try ValueSyntax.size(text, in: range)
        }, show: { String($0[keyPath: property]) })
    }

    /// On or off (``ValueSyntax/flag(_:)``: `on/off`, `true/false`, `yes/no`, `1/0`), shown `on` or `off`.
    public static func flag(_ section: String, _ name: String, _ property: any SendableKeyPath<ServiceConfiguration, Bool>) -> ConfigurationKey {
        ConfigurationKey(section: section, name: name, read: { c, text throws(Rejection) in
            c[keyPath: property] = try ValueSyntax.flag(text)
        }, show: { $0[keyPath: property] ? "on" : "off" })
    }

    /// A non-empty file or directory path; `shown` gives the effective value when it is derived
    /// from another key (e.g. the database path from `data_dir`).
    public static func path(_ section: String, _ name: String, _ property: any SendableKeyPath<ServiceConfiguration, String?>,
                            shown: @escaping @Sendable (ServiceConfiguration) -> String?) -> ConfigurationKey {
        ConfigurationKey(section: section, name: name, read: { c, text throws(Rejection) in
            guard !text.isEmpty else { throw Rejection(expected: "a path") }
            c[keyPath: property] = text
        }, show: shown)
    }

    /// A non-empty path that always has a value.
    public static func path(_ section: String, _ name: String, _ property: any SendableKeyPath<ServiceConfiguration, String>) -> ConfigurationKey {
        ConfigurationKey(section: section, name: name, read: { c, text throws(Rejection) in
            guard !text.isEmpty else { throw Rejection(expected: "a path") }
            c[keyPath: property] = text
        }, show: { $0[keyPath: property] })
    }

    /// Any text, optionally checked by `validate` (which throws what it expected).
    public static func text(_ section: String, _ name: String, _ property: any SendableKeyPath<ServiceConfiguration, String?>,
                            secret: Bool = false,
                            validate: @escaping @Sendable (String) throws(Rejection) -> Void = { _ throws(Rejection) in }) -> ConfigurationKey {
        ConfigurationKey(section: section, name: name, isSecret: secret, read: { c, text throws(Rejection) in
            try validate(text)
            c[keyPath: property] = text
        }, show: { $0[keyPath: property] })
    }

    static func parseInteger(_ text: String, in range: ClosedRange<Int>) throws(Rejection) -> Int {
        guard let n = Int(text), range.contains(n) else {
            throw Rejection(expected: "an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return n
    }
}
