/// An INI file as SimpleX servers write them: `[section]` headers, `key = value` lines,
/// `#` or `;` comment lines. Section and key names are case-sensitive, lower-case by convention.
/// A value may be quoted, `"..."` or `'...'`, to keep leading or trailing spaces or a ` #`; the
/// quotes are removed and nothing inside them is an escape. A comment after a value is refused.
public struct INIFile: Equatable, Sendable {
    /// One `key = value` with the line it came from, for messages.
    public struct Entry: Equatable, Sendable {
        public var key: String
        public var value: String
        public var line: Int
    }

    /// One `[section]` with its header's line and its entries in file order.
    public struct Section: Equatable, Sendable {
        public var name: String
        public var line: Int
        public var entries: [Entry]
    }

    /// The file's name in messages.
    public let path: String
    /// Sections in file order.
    public private(set) var sections: [Section] = []
    /// Every line that could not be read, each naming its line; the other lines are still read,
    /// so all mistakes are reported at once.
    public private(set) var errors: [ConfigurationError] = []

    /// Parses `text`, read from `path`; a malformed line, a duplicate section or key, a key
    /// outside any section or an unterminated quote is recorded in ``errors``. A byte-order
    /// mark at the start (Windows editors write one) is not part of the first line.
    public init(parsing text: String, path: String = "configuration") {
        self.path = path
        let text = text.unicodeScalars.first == "\u{FEFF}" ? String(text.unicodeScalars.dropFirst()) : text
        var firstLine: [String: Int] = [:]
        // "\r\n" is one Character in Swift, so split on both line-end forms.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        for (index, raw) in lines.enumerated() {
            let number = index + 1
            let at = ConfigurationSource.file(path: path, line: number)
            let line = raw.trimmingCharacters(in: " \t\r")
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else {
                    errors.append(.syntax(at, "malformed section header \(line)"))
                    // The keys under it belong to no known section: skip them rather than
                    // report each one as outside any section.
                    sections.append(Section(name: "", line: number, entries: []))
                    continue
                }
                let name = String(line.dropFirst().dropLast()).trimmingCharacters(in: " \t")
                if name.isEmpty {
                    errors.append(.syntax(at, "empty section name []"))
                } else if let first = firstLine["[\(name)]"] {
                    errors.append(.syntax(at, "duplicate section [\(name)] (first at line \(first))"))
                } else {
                    firstLine["[\(name)]"] = number
                }
                sections.append(Section(name: name, line: number, entries: []))
                continue
            }
            guard let eq = line.firstIndex(of: "=") else {
                errors.append(.syntax(at, "expected key = value, [section] or a # comment"))
                continue
            }
            let key = String(line[..<eq]).trimmingCharacters(in: " \t")
            guard !key.isEmpty else { errors.append(.syntax(at, "missing key before '='")); continue }
            guard let current = sections.indices.last else {
                errors.append(.syntax(at, "'\(key)' is outside any [section]"))
                continue
            }
            let section = sections[current].name
            guard !section.isEmpty else { continue }
            if let first = firstLine[section + "." + key] {
                errors.append(.syntax(at, "duplicate key '\(key)' in [\(section)] (first at line \(first))"))
                continue
            }
            firstLine[section + "." + key] = number
            let text = String(line[line.index(after: eq)...]).trimmingCharacters(in: " \t")
            if Self.hasTrailingComment(text) {
                errors.append(.syntax(at, "'\(key)': a # or ; after a space is a comment after the value, which is not read as one: "
                                      + "quote the value, or put the comment on a line of its own"))
                continue
            }
            let value: String
            switch Self.unquoted(text) {
            case .success(let v): value = v
            case .failure(let problem): errors.append(.syntax(at, "'\(key)': \(problem.message)")); continue
            }
            sections[current].entries.append(Entry(key: key, value: value, line: number))
        }
    }

    struct QuoteProblem: Error { let message: String }

    /// Whether a `#` or `;` follows a space or tab outside the value's quotes: a comment after
    /// the value, refused since the value would silently end with the comment's text.
    static func hasTrailingComment(_ text: String) -> Bool {
        var rest = Substring(text)
        if let quote = rest.first, quote == "\"" || quote == "'", let close = rest.dropFirst().firstIndex(of: quote) {
            rest = rest[rest.index(after: close)...]
        }
        return zip(rest, rest.dropFirst()).contains { ($0 == " " || $0 == "\t") && ($1 == "#" || $1 == ";") }
    }

    /// The value without its quotes, if it has them.
    static func unquoted(_ text: String) -> Result<String, QuoteProblem> {
        guard let quote = text.first, quote == "\"" || quote == "'" else { return .success(text) }
        guard text.count >= 2, text.last == quote else {
            return .failure(QuoteProblem(message: "a value starting with \(quote) must end with \(quote)"))
        }
        let inner = text.dropFirst().dropLast()
        guard !inner.contains(quote) else {
            return .failure(QuoteProblem(message: "\(quote) inside a \(quote)-quoted value (quote it with the other quote)"))
        }
        return .success(String(inner))
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
