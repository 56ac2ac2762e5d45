/// The shape of a database as the two backends can be compared on: each table's columns (name,
/// kind, whether NULL is refused), its primary key and its unique constraints. Tests hold the
/// SQLite and PostgreSQL schemas equal, so a migration both cannot express shows at once.
package struct StoreSchema: Equatable, CustomStringConvertible {
    package struct Column: Equatable {
        package let name: String
        /// `integer`, `text` or `bytes`.
        package let kind: String
        package let notNull: Bool
    }

    package struct Table: Equatable {
        package var columns: [Column] = []
        package var primaryKey: [String] = []
        /// Each unique constraint or unique index: its columns, and whether it is partial (`WHERE`).
        package var unique: Set<[String]> = []
    }

    package var tables: [String: Table] = [:]

    package var description: String {
        tables.keys.sorted().map { name in
            let t = tables[name]!
            let columns = t.columns.map { "\($0.name) \($0.kind)\($0.notNull ? " not null" : "")" }.joined(separator: ", ")
            return "\(name)(\(columns)) pk(\(t.primaryKey.joined(separator: ","))) unique\(t.unique.map { $0.joined(separator: ",") }.sorted())"
        }.joined(separator: "\n")
    }

    /// A declared or reported column type as one of the kinds both backends share.
    static func kind(_ type: String) -> String {
        switch type.lowercased() {
        case "integer", "bigint": return "integer"
        case "blob", "bytea": return "bytes"
        default: return type.lowercased()
        }
    }
}

extension SQLiteDatabase {
    /// The schema as ``StoreSchema`` compares it.
    package func schema() throws -> StoreSchema {
        try read { conn in
            var schema = StoreSchema()
            let names = try conn.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").map { try $0.text(0) }
            for name in names {
                var table = StoreSchema.Table()
                var key: [(Int64, String)] = []
                for row in try conn.query("PRAGMA table_info(\(name))") {
                    let column = try row.text(1), pk = try row.int(5)
                    if pk > 0 { key.append((pk, column)) }
                    table.columns.append(.init(name: column, kind: StoreSchema.kind(try row.text(2)), notNull: try row.int(3) != 0 || pk > 0))
                }
                table.primaryKey = key.sorted { $0.0 < $1.0 }.map(\.1)
                for index in try conn.query("PRAGMA index_list(\(name))") where try index.int(2) == 1 && index.text(3) != "pk" {
                    var columns = try conn.query("PRAGMA index_info(\(try index.text(1)))").map { try $0.text(2) }
                    if try index.int(4) == 1 { columns.append("WHERE") }
                    table.unique.insert(columns)
                }
                schema.tables[name] = table
            }
            return schema
        }
    }
}

extension PostgresDatabase {
    /// The schema as ``StoreSchema`` compares it (the current schema's tables).
    package func schema() throws -> StoreSchema {
        try read { conn in
            var schema = StoreSchema()
            for row in try conn.query("""
                SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
                WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position
                """) {
                schema.tables[try row.text(0), default: .init()].columns
                    .append(.init(name: try row.text(1), kind: StoreSchema.kind(try row.text(2)), notNull: try row.text(3) == "NO"))
            }
            for row in try conn.query("""
                SELECT t.relname, i.indisprimary, i.indpred IS NOT NULL,
                       array_to_string(ARRAY(SELECT a.attname FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
                                             JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.ord), ',')
                FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
                WHERE n.nspname = current_schema() AND i.indisunique
                """) {
                let table = try row.text(0)
                var columns = try row.text(3).split(separator: ",").map(String.init)
                if try row.int(1) == 1 {
                    schema.tables[table, default: .init()].primaryKey = columns
                } else {
                    if try row.int(2) == 1 { columns.append("WHERE") }
                    schema.tables[table, default: .init()].unique.insert(columns)
                }
            }
            return schema
        }
    }
}
