/// Header fields in the order received (or added), with case-insensitive lookup by name.
///
/// Names and values are kept exactly as they arrived, minus the optional whitespace around
/// values. Request field values may contain obs-text (octets 0x80–0xFF); the parser decodes
/// values as ISO-8859-1 — one Unicode scalar per octet — so the original octets are always
/// recoverable (`HTTPHeaders.octets(of:)`). ASCII values read the same in any decoding.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral, Equatable {
    /// One field line: a name and its value.
    public typealias Field = (name: String, value: String)

    var fields: [Field]

    /// An empty header list.
    public init() {
        fields = []
    }

    /// Headers from ordered name/value pairs.
    public init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    init(reservingCapacity capacity: Int) {
        fields = []
        fields.reserveCapacity(capacity)
    }

    /// Number of field lines.
    public var count: Int { fields.count }

    /// Every field line in message order (shares the storage: no copy).
    public var lines: [Field] { fields }

    /// True when there are no field lines.
    public var isEmpty: Bool { fields.isEmpty }

    /// Appends a field line, keeping any existing lines of the same name.
    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Removes every line named `name` (case-insensitively), then appends one.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        fields.append((name: name, value: value))
    }

    /// Removes every line named `name` (case-insensitively).
    public mutating func remove(name: String) {
        fields.removeAll { Self.namesEqual($0.name, name) }
    }

    /// All values of lines named `name` (case-insensitively), in order.
    public func values(for name: String) -> [String] {
        var result: [String] = []
        for field in fields where Self.namesEqual(field.name, name) {
            result.append(field.value)
        }
        return result
    }

    /// The value of the first line named `name` (case-insensitively), if any.
    public func first(_ name: String) -> String? {
        for field in fields where Self.namesEqual(field.name, name) {
            return field.value
        }
        return nil
    }

    /// True when a line named `name` exists.
    public func contains(_ name: String) -> Bool {
        first(name) != nil
    }

    /// True when a line is named any of `names` (case-insensitively): one pass over the lines,
    /// where asking `contains` for each name walks them once per name.
    public func containsAny(of names: [String]) -> Bool {
        for field in fields {
            let length = field.name.utf8.count
            for name in names where name.utf8.count == length && Self.namesEqual(field.name, name) { return true }
        }
        return false
    }

    /// The octets of a value as received (inverse of the parser's ISO-8859-1 decoding); nil when
    /// the value holds a scalar above U+00FF, which a received value never does.
    public static func octets(of value: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            guard scalar.value <= 0xFF else { return nil }
            bytes.append(UInt8(scalar.value))
        }
        return bytes
    }

    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// ASCII case-insensitive comparison without allocating lowercased copies.
    static func namesEqual(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                guard x.count == y.count else { return false }
                for i in 0..<x.count where x[i] != y[i] {
                    guard HTTPGrammar.lowercased(x[i]) == HTTPGrammar.lowercased(y[i]) else { return false }
                }
                return true
            }
        }
    }
}

extension HTTPHeaders: CustomStringConvertible {
    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }
}
