import Foundation
import JSON
import Testing
import TestSupport

/// docs/protocol.md's command table names the wire's fields as the schema does: each command's
/// fields (`name?` for an optional one) and each answer written with its fields
/// (`badgeCatalog {catalog, badgeStatement?}`) match the `command` and `response` mappings of
/// schema/badges-rpc.schema.json exactly, so the document cannot call a field by another name.
@Suite struct ProtocolDocumentTests {
    struct Row {
        let command: String
        let fields: [String]
        let answer: String
        let answerFields: [String]?
    }

    /// The rows of the table under "## Commands".
    static func commandTable(_ text: String) -> [Row] {
        guard let start = text.range(of: "\n## Commands\n") else { return [] }
        let lines = text[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
            .drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }
        return lines.dropFirst(2).compactMap { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 5 else { return nil }
            let answer = cells[3].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let braced = answer.firstIndex(of: "{").map { open in
                answer[answer.index(after: open)...].prefix { $0 != "}" }.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            }
            let tag = String(answer.prefix { $0 != " " && $0 != "{" })
            return Row(command: cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`")),
                       fields: cells[2] == "none" ? [] : topLevelCodeSpans(cells[2]), answer: tag, answerFields: braced)
        }
    }

    /// The `code` spans of a cell outside parentheses (`payment` (`apple`, …) names `payment`).
    static func topLevelCodeSpans(_ cell: String) -> [String] {
        var spans: [String] = [], depth = 0, current: String?
        for c in cell {
            if var span = current {
                if c == "`" { spans.append(span); current = nil } else { span.append(c); current = span }
            } else if c == "`" && depth == 0 {
                current = ""
            } else if c == "(" {
                depth += 1
            } else if c == ")" {
                depth -= 1
            }
        }
        return spans
    }

    /// `name` and `name?` as the mapping's properties and optionalProperties.
    static func shape(_ names: [String]) -> (required: Set<String>, optional: Set<String>) {
        (Set(names.filter { !$0.hasSuffix("?") }), Set(names.filter { $0.hasSuffix("?") }.map { String($0.dropLast()) }))
    }

    static func shape(of mapping: JSONValue) -> (required: Set<String>, optional: Set<String>) {
        (Set(mapping["properties"]?.objectValue?.keys ?? []), Set(mapping["optionalProperties"]?.objectValue?.keys ?? []))
    }

    @Test func theCommandTableNamesTheSchemasFields() throws {
        let document = try String(contentsOf: Repository.root.appendingPathComponent("docs/protocol.md"), encoding: .utf8)
        let schema = try JSONValue.parse(ProjectSchema.bytes())
        let commands = try #require(schema["definitions"]?["command"]?["mapping"]?.objectValue)
        let responses = try #require(schema["definitions"]?["response"]?["mapping"]?.objectValue)
        let rows = Self.commandTable(document)
        #expect(Set(rows.map(\.command)) == Set(commands.keys), "\(rows.map(\.command))")
        #expect(rows.contains { $0.answerFields != nil }, "no answer in the table lists its fields")
        for row in rows {
            let command = try #require(commands[row.command], "\(row.command) is not a command of the schema")
            let documented = Self.shape(row.fields), wire = Self.shape(of: command)
            #expect(documented.required == wire.required && documented.optional == wire.optional,
                    "\(row.command): the table says \(row.fields), the schema \(wire)")
            let response = try #require(responses[row.answer], "\(row.command): \(row.answer) is not an answer of the schema")
            if let fields = row.answerFields {
                let answered = Self.shape(fields), wireAnswer = Self.shape(of: response)
                #expect(answered.required == wireAnswer.required && answered.optional == wireAnswer.optional,
                        "\(row.command): the table says \(row.answer) {\(fields.joined(separator: ", "))}, the schema \(wireAnswer)")
            }
        }
    }

    /// The reading is not blind: the field name the document once gave the signed catalog's
    /// statement, a dropped `?` and a renamed command field are each told apart from the schema's.
    @Test func theTableReadingSeesAWrongName() throws {
        let row = "| `getBadgeCatalog` | none | `badgeCatalog {catalog, statement?}` | built |"
        let text = "\n## Commands\n\n| command | fields | answer | in this service |\n|---|---|---|---|\n\(row)\n| `purchaseBadge` | `masterKey`, `payment` (`apple`, `google`), `upgrade` | `badgeCredential` | built |\n\nafter\n"
        let rows = Self.commandTable(text)
        #expect(rows.count == 2)
        #expect(rows.first?.answer == "badgeCatalog" && rows.first?.answerFields == ["catalog", "statement?"])
        #expect(Self.shape(rows.first?.answerFields ?? []).optional == ["statement"])
        #expect(rows.last?.fields == ["masterKey", "payment", "upgrade"])
        let schema = try JSONValue.parse(ProjectSchema.bytes())
        let catalog = try #require(schema["definitions"]?["response"]?["mapping"]?["badgeCatalog"])
        #expect(Self.shape(of: catalog).optional == ["badgeStatement"])
        let purchase = try #require(schema["definitions"]?["command"]?["mapping"]?["purchaseBadge"])
        #expect(Self.shape(of: purchase).required == ["masterKey", "payment"] && Self.shape(rows.last!.fields).required != Self.shape(of: purchase).required)
    }
}
