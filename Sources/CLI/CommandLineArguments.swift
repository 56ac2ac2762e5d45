/// The arguments of one subcommand, consumed as the command reads them; whatever is left
/// when it calls ``finish()`` is a mistake reported in one line.
public struct CommandLineArguments {
    private var items: [String]

    public init(_ items: [String]) { self.items = items }

    /// Whether `--help` or `-h` was given (and consumes it).
    public mutating func wantsHelp() -> Bool {
        let had = items.contains("--help") || items.contains("-h")
        items.removeAll { $0 == "--help" || $0 == "-h" }
        return had
    }

    /// The value of `--name VALUE` or `--name=VALUE`, if present.
    public mutating func option(_ name: String) throws(UsageError) -> String? {
        let flag = "--" + name
        if let i = items.firstIndex(of: flag) {
            guard i + 1 < items.count, !items[i + 1].hasPrefix("--") else { throw UsageError("\(flag) needs a value") }
            let value = items[i + 1]
            items.removeSubrange(i...(i + 1))
            guard !items.contains(flag) else { throw UsageError("\(flag) given twice") }
            return value
        }
        if let i = items.firstIndex(where: { $0.hasPrefix(flag + "=") }) {
            let value = String(items[i].dropFirst(flag.count + 1))
            items.remove(at: i)
            return value
        }
        return nil
    }

    /// The value of a required `--name VALUE`.
    public mutating func required(_ name: String) throws(UsageError) -> String {
        guard let v = try option(name) else { throw UsageError("--\(name) is required") }
        return v
    }

    /// An integer option within `range`.
    public mutating func int(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = try option(name) else { return nil }
        guard let v = Int(text), range.contains(v) else {
            throw UsageError("--\(name) must be an integer in \(range.lowerBound)...\(range.upperBound), not '\(text)'")
        }
        return v
    }

    /// Whether the bare flag `--name` was given.
    public mutating func flag(_ name: String) -> Bool {
        guard let i = items.firstIndex(of: "--" + name) else { return false }
        items.remove(at: i)
        return true
    }

    /// The options that take no value. Every other `--name` is followed by its value, which is
    /// never taken for a positional argument (so options may come before or after positionals).
    static let bareFlags: Set<String> = ["--signed", "--support", "--activate", "--help", "-h", "--restored", "--dry-run"]

    /// The next positional argument, if any: the first item that is neither an option nor the
    /// value of one; everything after `--` is positional.
    public mutating func positional() -> String? {
        var i = 0
        while i < items.count {
            let item = items[i]
            if item == "--" {
                items.remove(at: i)
                return i < items.count ? items.remove(at: i) : nil
            }
            guard item.hasPrefix("--") else { return items.remove(at: i) }
            let takesValue = !item.contains("=") && !Self.bareFlags.contains(item)
            i += takesValue && i + 1 < items.count && !items[i + 1].hasPrefix("--") ? 2 : 1
        }
        return nil
    }

    /// A required positional argument, described by `what` in the error.
    public mutating func requiredPositional(_ what: String) throws(UsageError) -> String {
        guard let v = positional() else { throw UsageError("missing \(what)") }
        return v
    }

    /// Refuses anything not consumed.
    public func finish() throws(UsageError) {
        if let extra = items.first {
            throw UsageError(extra.hasPrefix("--") ? "unknown option \(extra)" : "unexpected argument '\(extra)'")
        }
    }
}

/// A command-line mistake: printed in one line with a pointer to `--help`, exit status 2.
public struct UsageError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
