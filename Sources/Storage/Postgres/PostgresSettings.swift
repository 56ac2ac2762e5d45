import CLibPQ
import Foundation

/// Where the PostgreSQL database is and how long to wait for it: `[database] url` (a libpq
/// connection string or `postgresql://` URI) with the password kept apart, never in the URL,
/// so the URL may be shown and logged.
public struct PostgresSettings: Sendable, Equatable {
    public static let defaultPoolSize = 8
    public static let defaultConnectTimeoutSeconds = 5
    public static let defaultStatementTimeoutMilliseconds = 5_000

    public let url: String
    public let password: String?
    /// Connections open at most; a request waits up to the connect timeout for one.
    public let poolSize: Int
    /// libpq's `connect_timeout` (at least 2 seconds, as libpq counts it).
    public let connectTimeoutSeconds: Int
    /// The server cancels a statement past it (`statement_timeout`).
    public let statementTimeoutMilliseconds: Int
    /// The server named without secrets: `postgresql://user@host:port/dbname`.
    public let redacted: String

    /// Checks the URL with libpq's own parser; a URL holding a password is refused (it would be
    /// shown wherever the URL is). Errors are one line for the operator.
    public init(url: String, password: String?, poolSize: Int = PostgresSettings.defaultPoolSize,
                connectTimeoutSeconds: Int = PostgresSettings.defaultConnectTimeoutSeconds,
                statementTimeoutMilliseconds: Int = PostgresSettings.defaultStatementTimeoutMilliseconds) throws(PostgresSettingsError) {
        // libpq takes an empty string as "every default": a server the operator never named.
        guard !url.allSatisfy(\.isWhitespace) else { throw .invalidURL("it is empty (remove the key to use SQLite)") }
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &message) else {
            let reason = message.map { PostgresConnection.oneLine($0) } ?? "out of memory"
            PQfreemem(message)
            throw .invalidURL(reason)
        }
        defer { PQconninfoFree(options) }
        var parsed: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { parsed[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        if parsed["password"] != nil { throw .passwordInURL }
        guard poolSize >= 1 else { throw .invalidValue("pool_size", "must be at least 1") }
        guard connectTimeoutSeconds >= 2 else { throw .invalidValue("connect_timeout", "must be at least 2") }
        guard statementTimeoutMilliseconds >= 1 else { throw .invalidValue("statement_timeout_ms", "must be at least 1") }
        self.url = url
        self.password = password
        self.poolSize = poolSize
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.statementTimeoutMilliseconds = statementTimeoutMilliseconds
        let user = parsed["user"].map { $0 + "@" } ?? ""
        let host = parsed["host"] ?? parsed["hostaddr"] ?? "localhost"
        let port = parsed["port"].map { ":" + $0 } ?? ""
        let db = parsed["dbname"].map { "/" + $0 } ?? ""
        redacted = "postgresql://\(user)\(host)\(port)\(db)"
    }

    public static func == (a: PostgresSettings, b: PostgresSettings) -> Bool {
        a.url == b.url && a.password == b.password && a.poolSize == b.poolSize
            && a.connectTimeoutSeconds == b.connectTimeoutSeconds && a.statementTimeoutMilliseconds == b.statementTimeoutMilliseconds
    }
}

/// Why `[database]` settings for PostgreSQL were refused; `key` names the setting.
public enum PostgresSettingsError: Error, Equatable, CustomStringConvertible {
    case invalidURL(String)
    case passwordInURL
    case invalidValue(String, String)

    /// The reason without the key it is about.
    public var reason: String {
        switch self {
        case .invalidURL(let reason): return reason
        case .passwordInURL: return "it holds a password"
        case .invalidValue(_, let reason): return reason
        }
    }

    public var description: String {
        switch self {
        case .invalidURL(let reason): return "[database] url is not a libpq connection string: \(reason)"
        case .passwordInURL:
            return "[database] url holds a password; give it in [database] password_file or BADGE_SERVICE_DATABASE_PASSWORD"
        case .invalidValue(let key, let reason): return "[database] \(key) \(reason)"
        }
    }
}
