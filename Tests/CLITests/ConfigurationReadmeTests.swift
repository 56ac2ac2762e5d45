import CLI
import Foundation
import TestSupport
import Settings
import Testing

/// The README's configuration table against the key table in code, both ways: every key in
/// the README, every README key known to the code, and the same default.
@Suite struct ConfigurationReadmeTests {
    struct Row: Equatable, CustomStringConvertible {
        var section: String
        var key: String
        var defaultText: String
        var description: String { "[\(section)] \(key): \(defaultText)" }
    }

    /// The rows of the first table under "## Configuration" with a `section | key | default`
    /// header; an empty section cell continues the row above's section.
    static func readmeRows() throws -> [Row] {
        let readme = try String(contentsOf: Repository.root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex(of: "## Configuration"))
        let header = try #require(lines[start...].firstIndex { $0.hasPrefix("| section | key | default |") })
        var rows: [Row] = []
        var section = ""
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            try #require(cells.count >= 4, "\(line)")
            if !cells[0].isEmpty { section = cells[0].replacingOccurrences(of: "`", with: "").trimmingCharacters(in: CharacterSet(charactersIn: "[]")) }
            rows.append(Row(section: section, key: cells[1].replacingOccurrences(of: "`", with: ""),
                            defaultText: cells[2].replacingOccurrences(of: "`", with: "")))
        }
        return rows
    }

    /// A key's default as the README's table writes it (backticks aside).
    static func readmeText(_ value: KeyDefault) -> String {
        switch value {
        case .value(let v): return v
        case .derived(let how): return how
        case .unset(nil): return "unset"
        case .unset(let meaning?): return "unset (\(meaning))"
        case .required: return "required"
        }
    }

    @Test func theREADMEConfigurationTableIsTheKeyTable() throws {
        let readme = try Self.readmeRows()
        let code = ServiceConfiguration.keys.map { Row(section: $0.section, key: $0.name, defaultText: Self.readmeText($0.defaultValue)) }
        let readmeKeys = readme.map { "[\($0.section)] \($0.key)" }, codeKeys = code.map { "[\($0.section)] \($0.key)" }
        #expect(Set(codeKeys).subtracting(readmeKeys).sorted() == [], "keys the README's table does not list")
        #expect(Set(readmeKeys).subtracting(codeKeys).sorted() == [], "README keys the code does not know")
        #expect(readmeKeys.count == Set(readmeKeys).count, "a key listed twice")
        for row in code {
            if let listed = readme.first(where: { $0.section == row.section && $0.key == row.key }) {
                #expect(listed.defaultText == row.defaultText, "README says \(listed), the code \(row)")
            }
        }
        // The same order as config check lists them.
        #expect(readmeKeys == codeKeys.filter(readmeKeys.contains))
    }
}
