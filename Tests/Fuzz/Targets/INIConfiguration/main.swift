@testable import CLI
import FuzzSupport

/// The configuration file: `INIFile` (sections, keys, quotes, comments, line ends, a byte-order
/// mark) and `ServiceConfiguration.apply`, which reads every key's value with its own syntax
/// (addresses, ports, sizes, durations, URLs, key shapes). Beyond not crashing: every error is
/// one line (the operator rule: one line naming the file and line), names a line of the file,
/// and the values of each section (the first of its name) are what `value(_:_:)` answers.
fuzzMain { bytes in
    let text = lossyText(bytes)
    let ini = INIFile(parsing: text, path: "badge-service.ini")
    var configuration = ServiceConfiguration()
    let errors = configuration.apply(ini)
    let lineCount = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).count
    for error in errors {
        let message = error.description
        guard !message.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else {
            fatalError("a configuration error is not one line: \(message.debugDescription)")
        }
        if let line = error.line, !(1...max(lineCount, 1)).contains(line) {
            fatalError("an error names line \(line) of a \(lineCount)-line file")
        }
    }
    var seen: Set<String> = []
    // A repeated section is an error; lookups read the first one of a name.
    for section in ini.sections where !section.name.isEmpty && seen.insert(section.name).inserted {
        for entry in section.entries where ini.value(section.name, entry.key) != entry.value {
            fatalError("[\(section.name)] \(entry.key) reads back differently")
        }
    }
}
