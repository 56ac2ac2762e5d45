/// What the store's queries need of a connection, SQLite's or PostgreSQL's: one statement with
/// `?` placeholders and bound values, its rows, and how many rows it changed. Both backends run
/// the same queries (``SQLStoreTransaction``), so their semantics cannot drift apart.
protocol SQLConnection: AnyObject {
    /// Runs one statement with bound values and collects its rows.
    @discardableResult
    func query(_ sql: String, _ values: [SQLValue]) throws -> [SQLRow]
    /// Rows changed by the last statement.
    var changes: Int { get }
}

/// A value bound to or read from SQL.
enum SQLValue: Equatable {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])
}

/// One result row, read by column position.
struct SQLRow {
    let values: [SQLValue]

    func int(_ i: Int) throws -> Int64 {
        guard case .integer(let v) = values[i] else { throw StorageError.corrupt("column \(i) is not an integer") }
        return v
    }

    func optionalInt(_ i: Int) throws -> Int64? {
        if case .null = values[i] { return nil }
        return try int(i)
    }

    func text(_ i: Int) throws -> String {
        guard case .text(let v) = values[i] else { throw StorageError.corrupt("column \(i) is not text") }
        return v
    }

    func optionalText(_ i: Int) throws -> String? {
        if case .null = values[i] { return nil }
        return try text(i)
    }

    func blob(_ i: Int) throws -> [UInt8] {
        guard case .blob(let v) = values[i] else { throw StorageError.corrupt("column \(i) is not a blob") }
        return v
    }
}

extension SQLConnection {
    /// Runs one statement without bound values.
    @discardableResult
    func query(_ sql: String) throws -> [SQLRow] { try query(sql, []) }
}
