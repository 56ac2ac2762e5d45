import Glibc

/// A JSON object: members in insertion order, keys unique and compared by their exact
/// UTF-8 bytes.
///
/// Swift's `String ==` uses Unicode canonical equivalence, so `"é"` (U+00E9) equals `"e\u{301}"`;
/// JSON (RFC 8259 §8.3) and JTD compare names code unit by code unit. Both spellings are
/// therefore distinct members here, as they are to every other JSON implementation.
/// Equality of objects ignores member order, as JSON's does.
public struct JSONObject: Hashable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
    /// One member.
    public struct Member: Hashable, Sendable {
        public var key: String
        public var value: JSONValue
        public init(key: String, value: JSONValue) { self.key = key; self.value = value }

        public static func == (a: Member, b: Member) -> Bool { exactlyEqual(a.key, b.key) && a.value == b.value }
        public func hash(into hasher: inout Hasher) { ExactKey(key).hash(into: &hasher); hasher.combine(value) }
    }

    /// Members in order.
    public private(set) var members: [Member] = []
    /// Key → position, built only past `indexThreshold` members: small objects (every RPC
    /// object) are searched linearly, which is faster than hashing.
    private var index: [ExactKey: Int]? = nil
    static let indexThreshold = 12

    public init() {}

    /// Members already known to have distinct keys (the parser checked them as it read them).
    init(distinctMembers: [Member]) {
        members = distinctMembers
        rebuildIndex()
    }

    /// Room for `count` members without growing (an object built member by member).
    public mutating func reserveCapacity(_ count: Int) { members.reserveCapacity(count) }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        for (k, v) in elements { self[k] = v }
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    /// Keys in order.
    public var keys: [String] { members.map(\.key) }

    public func makeIterator() -> IndexingIterator<[Member]> { members.makeIterator() }

    /// The position of `key`, or nil.
    public func position(of key: String) -> Int? {
        if let index { return index[ExactKey(key)] }
        return members.firstIndex { exactlyEqual($0.key, key) }
    }

    /// Whether the object has the member `key`.
    public func contains(_ key: String) -> Bool { position(of: key) != nil }

    /// The value of `key`; setting replaces in place or appends, setting nil removes.
    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { members[$0].value } }
        set {
            if let p = position(of: key) {
                if let newValue {
                    members[p].value = newValue
                } else {
                    members.remove(at: p)
                    rebuildIndex()
                }
            } else if let newValue {
                _ = appendNew(key, newValue)
            }
        }
    }

    /// Appends `key` unless present; returns false (and changes nothing) when it is.
    @discardableResult
    public mutating func appendNew(_ key: String, _ value: JSONValue) -> Bool {
        if index == nil {
            if members.contains(where: { exactlyEqual($0.key, key) }) { return false }
            members.append(Member(key: key, value: value))
            if members.count > Self.indexThreshold { rebuildIndex() }
            return true
        }
        let k = ExactKey(key)
        guard index![k] == nil else { return false }
        index![k] = members.count
        members.append(Member(key: key, value: value))
        return true
    }

    private mutating func rebuildIndex() {
        guard members.count > Self.indexThreshold else { index = nil; return }
        var built = [ExactKey: Int](minimumCapacity: members.count)
        for (i, m) in members.enumerated() { built[ExactKey(m.key)] = i }
        index = built
    }

    /// Same members with equal values, in any order.
    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        guard a.count == b.count else { return false }
        for m in a.members {
            guard let v = b[m.key], v == m.value else { return false }
        }
        return true
    }

    /// Order-independent, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        var sum = 0
        for m in members { sum &+= m.hashValue }
        hasher.combine(count)
        hasher.combine(sum)
    }
}

/// A string compared and hashed by its exact UTF-8 bytes (see ``JSONObject``).
package struct ExactKey: Hashable, Sendable {
    package let string: String
    package init(_ string: String) { self.string = string }

    package static func == (a: ExactKey, b: ExactKey) -> Bool { exactlyEqual(a.string, b.string) }

    package func hash(into hasher: inout Hasher) {
        var s = string
        s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// Byte-wise string equality (no Unicode normalisation).
@inline(__always)
package func exactlyEqual(_ a: String, _ b: String) -> Bool {
    guard a.utf8.count == b.utf8.count else { return false }
    // `withUTF8` serves small (inline) strings too, from a stack copy; their UTF-8 view has no
    // contiguous storage, and the element-wise fallback cost ~160 instructions a key (issue 17).
    var a = a, b = b
    return a.withUTF8 { pa in
        b.withUTF8 { pb in pa.count == 0 || memcmp(pa.baseAddress!, pb.baseAddress!, pa.count) == 0 }
    }
}
