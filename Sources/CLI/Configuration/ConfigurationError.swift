/// A configuration or command-line mistake, worded for the operator who made it.
public enum ConfigurationError: Error, Equatable, CustomStringConvertible {
    case syntax(line: Int, String)
    case invalidValue(setting: String, value: String, expected: String)
    case missing(String)
    case unreadable(path: String, reason: String)

    public var description: String {
        switch self {
        case .syntax(let line, let what): return "configuration line \(line): \(what)"
        case .invalidValue(let setting, let value, let expected):
            return "\(setting) = \(value.isEmpty ? "(empty)" : value): expected \(expected)"
        case .missing(let what): return "missing \(what)"
        case .unreadable(let path, let reason): return "cannot read \(path): \(reason)"
        }
    }
}
