/// An INI file as SimpleX servers write them: `[section]` headers, `key = value` lines,
/// `#` or `;` comment lines. Section and key names are case-sensitive, lower-case by convention.
public struct INIFile: Equatable, Sendable {
    /// One `key = value` with the line it came from, for messages.
    public struct Entry: Equatable, Sendable {
        public var key: String
        public var value: String
        public var line: Int
    }

    /// Sections in file order; keys before any section header are refused.
    public private(set) var sections: [(name: String, entries: [Entry])] = []

    public static func == (a: INIFile, b: INIFile) -> Bool {
        a.sections.map(\.name) == b.sections.map(\.name) && a.sections.map(\.entries) == b.sections.map(\.entries)
    }

    /// Parses `text`; a malformed line, a duplicate section or key is an error naming the line.
    public init(parsing text: String) throws(ConfigurationError) {
        var seenSections = Set<String>()
        var seenKeys = Set<String>()
        // "\r\n" is one Character in Swift, so split on both line-end forms.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        for (index, raw) in lines.enumerated() {
            let number = index + 1
            let line = raw.trimmingCharacters(in: " \t\r")
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else { throw .syntax(line: number, "malformed section header") }
                let name = String(line.dropFirst().dropLast()).trimmingCharacters(in: " \t")
                guard !name.isEmpty, seenSections.insert(name).inserted else {
                    throw .syntax(line: number, "duplicate or empty section [\(name)]")
                }
                sections.append((name, []))
                continue
            }
            guard let eq = line.firstIndex(of: "=") else { throw .syntax(line: number, "expected key = value") }
            let key = String(line[..<eq]).trimmingCharacters(in: " \t")
            let value = String(line[line.index(after: eq)...]).trimmingCharacters(in: " \t")
            guard !key.isEmpty else { throw .syntax(line: number, "missing key before '='") }
            guard !sections.isEmpty else { throw .syntax(line: number, "'\(key)' is outside any [section]") }
            guard seenKeys.insert(sections[sections.count - 1].name + "." + key).inserted else {
                throw .syntax(line: number, "duplicate key '\(key)' in [\(sections[sections.count - 1].name)]")
            }
            sections[sections.count - 1].entries.append(Entry(key: key, value: value, line: number))
        }
    }

    /// The value of `key` in `section`, if set.
    public func value(_ section: String, _ key: String) -> String? {
        sections.first { $0.name == section }?.entries.first { $0.key == key }?.value
    }

    /// Whether the file has `section` at all.
    public func has(_ section: String) -> Bool { sections.contains { $0.name == section } }
}

extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
