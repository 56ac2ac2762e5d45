/// Why a configuration value was refused: what was expected instead (never the value itself,
/// which may be a secret pasted under the wrong key).
public struct SettingRejection: Error, Equatable, Sendable {
    public let expected: String
    public init(expected: String) { self.expected = expected }
}

/// What a key is when nothing sets it, as `config check` shows it and the README's
/// configuration table states it (a test holds the two together).
public enum KeyDefault: Sendable, Equatable {
    /// A value the key could be set to, the one a fresh configuration shows (`8080`, `on`).
    case value(String)
    /// Worked out from something else, described (`twice the CPUs, at least 4`); the effective
    /// value is shown beside it.
    case derived(String)
    /// Not set; `meaning` says what that does (`SQLite`, `off`), if anything needs saying.
    case unset(String?)
    /// A present section cannot do without it.
    case required
}

/// A key path that may be kept in a key table (shared between threads).
public typealias SendableKeyPath<Root, Value> = WritableKeyPath<Root, Value> & Sendable
