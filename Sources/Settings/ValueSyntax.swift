/// How a flag, a duration and a size may be spelled in the configuration (README, Configuration):
/// pure functions that read one value's text or say what was expected instead.
public enum ValueSyntax {
    // MARK: flags

    /// `on`, `true`, `yes`, `1` and `off`, `false`, `no`, `0`, in any case.
    public static func flag(_ text: String) throws(SettingRejection) -> Bool {
        switch text.lowercased() {
        case "on", "true", "yes", "1": return true
        case "off", "false", "no", "0": return false
        default: throw SettingRejection(expected: "on or off (or true/false, yes/no, 1/0)")
        }
    }

    // MARK: durations

    /// The unit a duration key documents: what a bare number means, and what the value is kept in.
    public enum TimeUnit: Sendable {
        case seconds, milliseconds

        var milliseconds: Int { self == .seconds ? 1000 : 1 }
        var name: String { self == .seconds ? "seconds" : "milliseconds" }
    }

    /// The suffixes a duration may carry, with their length in milliseconds.
    static let timeSuffixes: [(String, Int)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]

    /// A duration in `unit`, within `range` (in `unit`): a bare whole number of the unit, or a
    /// whole number with `ms`, `s`, `m` or `h`. A value that is not a whole number of the unit
    /// (`1500ms` for seconds) is refused rather than rounded.
    public static func duration(_ text: String, unit: TimeUnit, in range: ClosedRange<Int>) throws(SettingRejection) -> Int {
        let forms = "a bare number of \(unit.name), or a number with ms, s, m or h (500ms, 30s, 2m, 1h)"
        let expected = "\(unit.name) in \(range.lowerBound)...\(range.upperBound) (\(spelled(range.lowerBound, unit)) to \(spelled(range.upperBound, unit))): \(forms)"
        guard let (number, suffix) = splitNumber(text), let n = Int(number),
              let factor = suffix.isEmpty ? unit.milliseconds : timeSuffixes.first(where: { $0.0 == suffix })?.1
        else { throw SettingRejection(expected: expected) }
        let (milliseconds, overflow) = n.multipliedReportingOverflow(by: factor)
        guard !overflow else { throw SettingRejection(expected: expected) }
        guard milliseconds % unit.milliseconds == 0 else {
            throw SettingRejection(expected: "whole \(unit.name), which \(text) is not (nothing is rounded); \(expected)")
        }
        let value = milliseconds / unit.milliseconds
        guard range.contains(value) else { throw SettingRejection(expected: expected) }
        return value
    }

    /// `amount` of `unit` in the largest suffix that spells it whole (`3600` seconds: `1h`).
    static func spelled(_ amount: Int, _ unit: TimeUnit) -> String {
        let (ms, overflow) = amount.multipliedReportingOverflow(by: unit.milliseconds)
        guard !overflow, ms != 0 else { return "\(amount)" }
        for (suffix, factor) in timeSuffixes.reversed() where ms % factor == 0 { return "\(ms / factor)\(suffix)" }
        return "\(ms)ms"
    }

    // MARK: sizes

    /// The binary suffixes a size may carry, with their bytes.
    static let sizeSuffixes: [(String, Int)] = [("kib", 1 << 10), ("mib", 1 << 20), ("gib", 1 << 30)]
    /// Decimal or bare suffixes people write for the binary ones, refused: `KB` may mean 1000 or 1024.
    static let ambiguousSizeSuffixes: [String: String] = [
        "k": "KiB", "kb": "KiB", "m": "MiB", "mb": "MiB", "g": "GiB", "gb": "GiB",
    ]

    /// Bytes within `range`: a bare number of bytes, or a whole number with `KiB`, `MiB` or `GiB`
    /// (any case). `KB`, `MB`, `GB` (and `K`, `M`, `G`) are refused with the binary unit suggested.
    public static func size(_ text: String, in range: ClosedRange<Int>) throws(SettingRejection) -> Int {
        let expected = "bytes in \(range.lowerBound)...\(range.upperBound) (\(spelled(bytes: range.lowerBound)) to "
            + "\(spelled(bytes: range.upperBound))): a bare number of bytes, or a number with KiB, MiB or GiB (64KiB, 16MiB)"
        guard let (number, suffix) = splitNumber(text), let n = Int(number) else {
            throw SettingRejection(expected: expected)
        }
        var value = n
        if !suffix.isEmpty {
            let lower = suffix.lowercased()
            if let binary = ambiguousSizeSuffixes[lower] {
                throw SettingRejection(expected: "\(expected); did you mean \(number)\(binary)? (\(suffix) could mean 1000 or 1024)")
            }
            guard let factor = sizeSuffixes.first(where: { $0.0 == lower })?.1 else { throw SettingRejection(expected: expected) }
            let (bytes, overflow) = n.multipliedReportingOverflow(by: factor)
            guard !overflow else { throw SettingRejection(expected: expected) }
            value = bytes
        }
        guard range.contains(value) else { throw SettingRejection(expected: expected) }
        return value
    }

    /// `bytes` with the largest binary suffix that spells it whole (`1048576`: `1MiB`).
    static func spelled(bytes: Int) -> String {
        for (suffix, factor) in [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] where bytes >= factor && bytes % factor == 0 {
            return "\(bytes / factor)\(suffix)"
        }
        return "\(bytes)"
    }

    /// Splits `30s` into its ASCII digits and what follows them (spaces between allowed); nil
    /// when it does not start with a digit (a sign, a fraction, nothing).
    static func splitNumber(_ text: String) -> (Substring, Substring)? {
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty else { return nil }
        var rest = text[digits.endIndex...]
        while rest.first == " " { rest.removeFirst() }
        return (digits, rest)
    }
}
