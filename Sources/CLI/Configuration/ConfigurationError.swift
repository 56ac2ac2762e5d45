/// Where a configuration value came from: `config check` shows it beside each value, and every
/// error line starts with it.
public enum ConfigurationSource: Equatable, Sendable, CustomStringConvertible {
    /// The built-in default.
    case builtIn
    /// A line of the INI file.
    case file(path: String, line: Int)
    /// A `BADGE_SERVICE_*` environment variable.
    case environment(variable: String)
    /// A command-line flag such as `--data`.
    case commandLine(flag: String)

    public var description: String {
        switch self {
        case .builtIn: return "default"
        case .file(let path, let line): return "\(path):\(line)"
        case .environment(let variable): return variable
        case .commandLine(let flag): return flag
        }
    }
}

/// A configuration mistake, worded for the operator who made it: one line naming the file and
/// line, the environment variable or the flag.
public enum ConfigurationError: Error, Equatable, CustomStringConvertible {
    /// A line of the INI file that is not a header, `key = value`, comment or blank.
    case syntax(ConfigurationSource, String)
    case unknownSection(String, at: ConfigurationSource, suggestion: String?)
    case unknownKey(section: String, key: String, at: ConfigurationSource, suggestion: String?)
    case unknownVariable(String, suggestion: String?)
    /// `value` is already masked for a secret.
    case invalidValue(setting: String, value: String, expected: String, at: ConfigurationSource)
    case unreadable(path: String, reason: String)
    /// The configuration file sets a secret (`key`, the first) while someone outside this service may read it.
    case sharedSecrets(path: String, mode: String, readers: String, key: String)
    /// A present payment section without a key it needs; `at` is where the section is.
    case missingKey(section: String, key: String, at: ConfigurationSource)
    /// A key of a set that works only whole (`[apple]`'s App Store Server API key: `issuer_id`,
    /// `key_id`, `private_key`) is missing while another of the set is given.
    case incompleteKeySet(section: String, key: String, set: [String], purpose: String, at: ConfigurationSource)
    /// What `serve`'s start checks found in a file a key names, or between keys: one line
    /// naming the key and the file (`[apple] root_certificates: /etc/x.cer: …`).
    case deployment(String)

    /// The message, made one line whatever it quotes: a control character from the file or
    /// the environment (a lone CR, a newline in a variable) is shown escaped (`\r`, `\u{1B}`).
    public var description: String { Self.oneLine(message) }

    private var message: String {
        switch self {
        case .syntax(let at, let what): return "\(at): \(what)"
        case .unknownSection(let name, let at, let suggestion):
            return "\(at): unknown section [\(name)]" + Self.hint(suggestion.map { "[\($0)]" })
        case .unknownKey(let section, let key, let at, let suggestion):
            return "\(at): unknown key '\(key)' in [\(section)]" + Self.hint(suggestion.map { "'\($0)'" })
        case .unknownVariable(let name, let suggestion):
            return "\(name): unknown configuration variable" + Self.hint(suggestion)
        case .invalidValue(let setting, let value, let expected, let at):
            let shown = value.isEmpty ? "(empty)" : value
            switch at {
            case .file, .builtIn: return "\(at): \(setting) = \(shown): expected \(expected)"
            case .environment(let name): return "\(name)=\(shown): expected \(expected)"
            case .commandLine(let flag): return "\(flag) \(shown): expected \(expected)"
            }
        case .unreadable(let path, let reason): return "cannot read configuration file \(path): \(reason)"
        case .sharedSecrets(let path, let mode, let readers, let key):
            return "configuration file \(path) has mode \(mode) and sets \(key): readable by \(readers); chmod 600 it, or set the secret in the environment"
        case .missingKey(let section, let key, let at):
            return "\(at): [\(section)] \(key) is required when [\(section)] is present"
        case .incompleteKeySet(let section, let key, let set, let purpose, let at):
            let others = set.filter { $0 != key }.joined(separator: " and ")
            return "\(at): [\(section)] \(key) is required with \(others) (\(purpose))"
        case .deployment(let line): return line
        }
    }

    /// The file line the mistake is on, if it is in the file.
    var line: Int? {
        switch self {
        case .syntax(let at, _), .unknownSection(_, let at, _), .unknownKey(_, _, let at, _), .invalidValue(_, _, _, let at),
             .missingKey(_, _, let at), .incompleteKeySet(_, _, _, _, let at):
            if case .file(_, let line) = at { return line }
            return nil
        case .unknownVariable, .unreadable, .sharedSecrets, .deployment: return nil
        }
    }

    static func hint(_ suggestion: String?) -> String { suggestion.map { " (did you mean \($0)?)" } ?? "" }

    /// `text` with every character that could break or rewrite its line escaped: the C0 and C1
    /// controls but tab, DEL, and the Unicode line and paragraph separators.
    static func oneLine(_ text: String) -> String {
        func breaksLine(_ s: Unicode.Scalar) -> Bool {
            (s.value < 0x20 && s != "\t") || (0x7F...0x9F).contains(s.value) || s == "\u{2028}" || s == "\u{2029}"
        }
        guard text.unicodeScalars.contains(where: breaksLine) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard breaksLine(scalar) else { out.append(scalar); continue }
            let escaped = switch scalar {
            case "\n": "\\n"
            case "\r": "\\r"
            default: "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
            out.append(contentsOf: escaped.unicodeScalars)
        }
        return String(out)
    }
}

/// Every mistake of one configuration, reported together so the operator fixes them in one go.
public struct ConfigurationErrors: Error, Equatable, CustomStringConvertible {
    public let errors: [ConfigurationError]

    public init(_ errors: [ConfigurationError]) { self.errors = errors }

    /// One line per mistake.
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
