/// One CIDR range: an address and how many of its leading bits must match.
public struct IPRange: Sendable, Hashable, CustomStringConvertible {
    public let network: IPAddress
    public let prefixLength: Int

    /// `10.0.0.0/8`, `2001:db8::/32`; a bare address is its own /32 or /128. Refuses a prefix
    /// longer than the address and bits set past the prefix (`10.0.0.1/8` is probably a typo).
    public init(parsing text: some StringProtocol) throws(IPRangeError) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let network = IPAddress(parts[0]) else { throw .notAnAddress }
        let bits = network.bytes.count * 8
        var length = bits
        if parts.count == 2 {
            let digits = parts[1]
            guard !digits.isEmpty, digits.utf8.count <= 3, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                  let n = Int(digits), n <= bits else { throw .badPrefixLength(maximum: bits) }
            length = n
        }
        let masked = Self.mask(network.bytes, to: length)
        guard masked == network.bytes else {
            throw .hostBitsSet(suggestion: "\(IPAddress(bytes: masked)!)/\(length)")
        }
        self.network = network
        prefixLength = length
    }

    /// Whether `address` lies in this range (an IPv4 address never lies in an IPv6 range, nor the reverse).
    public func contains(_ address: IPAddress) -> Bool {
        address.bytes.count == network.bytes.count && Self.mask(address.bytes, to: prefixLength) == network.bytes
    }

    public var description: String { "\(network)/\(prefixLength)" }

    static func mask(_ bytes: [UInt8], to length: Int) -> [UInt8] {
        var out = bytes
        for i in out.indices {
            let keep = min(8, max(0, length - i * 8))
            out[i] &= keep == 8 ? 0xff : ~(0xff >> keep)
        }
        return out
    }
}

/// Why a CIDR range was refused.
public enum IPRangeError: Error, Equatable, Sendable {
    case notAnAddress
    case badPrefixLength(maximum: Int)
    case hostBitsSet(suggestion: String)
}

/// The peers trusted to say who their client is (`[server] trusted_proxies`): requests from them
/// are counted against the address their forwarding headers or PROXY header name. Empty: none.
public struct TrustedProxies: Sendable, Hashable, CustomStringConvertible {
    public let ranges: [IPRange]

    /// Trusts no one: every request counts against its TCP peer.
    public static let none = TrustedProxies(ranges: [])

    public init(ranges: [IPRange]) { self.ranges = ranges }

    /// A comma-separated list of ranges (spaces around entries allowed); the error names the entry.
    public init(parsing text: String) throws(TrustedProxiesError) {
        var ranges: [IPRange] = []
        for (index, raw) in text.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            let entry = raw.trimmingSpaces
            guard !entry.isEmpty else { throw TrustedProxiesError(entry: index + 1, text: "", reason: "is empty") }
            do throws(IPRangeError) {
                ranges.append(try IPRange(parsing: entry))
            } catch {
                let reason = switch error {
                case .notAnAddress: "is not an IPv4 or IPv6 address (with an optional /prefix)"
                case .badPrefixLength(let maximum): "has a prefix length outside 0...\(maximum)"
                case .hostBitsSet(let suggestion): "has bits set past its prefix (did you mean \(suggestion)?)"
                }
                throw TrustedProxiesError(entry: index + 1, text: String(entry), reason: reason)
            }
        }
        self.ranges = ranges
    }

    public var isEmpty: Bool { ranges.isEmpty }

    public func contains(_ address: IPAddress) -> Bool {
        ranges.contains { $0.contains(address) }
    }

    /// The ranges, comma-separated, as `config check` shows them.
    public var description: String { ranges.map(\.description).joined(separator: ", ") }
}

/// A `trusted_proxies` entry that is not a range: which one (from 1) and why.
public struct TrustedProxiesError: Error, Equatable, Sendable, CustomStringConvertible {
    public let entry: Int
    public let text: String
    public let reason: String

    public var description: String { "entry \(entry) '\(text)' \(reason)" }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (optional whitespace in HTTP and INI lists).
    var trimmingSpaces: SubSequence {
        var s = self[...]
        while let first = s.first, first == " " || first == "\t" { s = s.dropFirst() }
        while let last = s.last, last == " " || last == "\t" { s = s.dropLast() }
        return s
    }
}
