import HTTPServer

/// A key path that may be kept in the key table (shared between threads).
public typealias SendableKeyPath<Root, Value> = WritableKeyPath<Root, Value> & Sendable

/// One key the configuration knows: its section and name, how its text is read, and how its
/// effective value is shown. ``ServiceConfiguration/keys`` lists every one; any other key,
/// section or `BADGE_SERVICE_*` variable is an error.
public struct ConfigurationKey: Sendable {
    /// Why a value was refused: what was expected instead.
    public struct Rejection: Error, Equatable {
        public let expected: String
        public init(expected: String) { self.expected = expected }
    }

    public let section: String
    public let name: String
    /// Masked by `config check` and never echoed in an error.
    public let isSecret: Bool
    /// A value refused is not echoed in the error, though the key is shown: `[database] url`,
    /// refused precisely when it holds a password.
    public var hidesRefusedValue = false
    let read: @Sendable (inout ServiceConfiguration, String) throws(Rejection) -> Void
    let show: @Sendable (ServiceConfiguration) -> String?

    /// A key read by `read` and shown by `show` (nil: unset).
    public init(section: String, name: String, isSecret: Bool = false,
                read: @escaping @Sendable (inout ServiceConfiguration, String) throws(Rejection) -> Void,
                show: @escaping @Sendable (ServiceConfiguration) -> String?) {
        self.section = section
        self.name = name
        self.isSecret = isSecret
        self.read = read
        self.show = show
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

    /// Whole seconds within `range`, kept as a `Duration`.
    public static func seconds(_ section: String, _ name: String, _ property: any SendableKeyPath<ServiceConfiguration, Duration>,
                               in range: ClosedRange<Int>) -> ConfigurationKey {
        ConfigurationKey(section: section, name: name, read: { c, text throws(Rejection) in
            c[keyPath: property] = .seconds(try parseInteger(text, in: range))
        }, show: { String($0[keyPath: property].components.seconds) })
    }

    /// `on` or `off`.
    public static func flag(_ section: String, _ name: String, _ property: any SendableKeyPath<ServiceConfiguration, Bool>) -> ConfigurationKey {
        ConfigurationKey(section: section, name: name, read: { c, text throws(Rejection) in
            switch text {
            case "on": c[keyPath: property] = true
            case "off": c[keyPath: property] = false
            default: throw Rejection(expected: "on or off")
            }
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
