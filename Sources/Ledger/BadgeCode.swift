/// A redemption code (docs/protocol.md, Redemption codes): prefix `SB`, 19 payload characters of Crockford
/// base32 and one Luhn mod 32 check character. The service stores only the SHA-256 of
/// `hashInput`, so `canonical` must be rebuilt identically from however the code was typed.
public struct BadgeCode: Hashable, Sendable, CustomStringConvertible {
    public static let prefix = "SB"
    /// Crockford base32; a character's value is its index. No I, L, O or U.
    public static let alphabet: [Character] = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    public static let payloadLength = 19
    /// Payload plus check character.
    public static let bodyLength = 20

    /// The 20 character values (0 ..< 32), the last one the check value.
    public let values: [UInt8]

    /// A new code from `randomBytes` (exactly 19 CSPRNG bytes, else nil): each byte mod 32,
    /// which is unbiased since 256 is a multiple of 32, then the check character.
    public init?(randomBytes: some Collection<UInt8>) {
        guard randomBytes.count == Self.payloadLength else { return nil }
        let payload = randomBytes.map { $0 % 32 }
        values = payload + [Self.checkValue(payload: payload)]
    }

    /// The lenient parser: keeps only alphanumeric characters, upper-cases them, requires the
    /// prefix `SB` and a body of exactly 20 characters, reads I and L as 1 and O as 0, and checks
    /// the alphabet and the check character. Nil for anything else (answered `code_invalid`).
    public init?(parsing text: String) {
        // Upstream filters with Haskell `isAlphaNum` (Unicode letters and numbers) and maps with
        // `toUpper` (simple case mapping); a full mapping that expands (ß → SS) is not applied.
        var chars: [Unicode.Scalar] = []
        for scalar in text.unicodeScalars where Self.isAlphaNumeric(scalar) {
            let upper = scalar.properties.uppercaseMapping.unicodeScalars
            chars.append(upper.count == 1 ? upper[upper.startIndex] : scalar)
        }
        guard chars.count == Self.prefix.unicodeScalars.count + Self.bodyLength,
              chars.prefix(2).elementsEqual(Self.prefix.unicodeScalars)
        else { return nil }
        var values: [UInt8] = []
        for scalar in chars.dropFirst(2) {
            guard let value = Self.value(of: scalar) else { return nil }
            values.append(value)
        }
        guard Self.checkValue(payload: values.prefix(Self.payloadLength)) == values[Self.payloadLength] else {
            return nil
        }
        self.values = values
    }

    /// The canonical form of any typed code, or nil when it does not parse.
    public static func canonical(_ text: String) -> String? { BadgeCode(parsing: text)?.canonical }

    /// `SB` + 20 characters, as the client sends it and as it is hashed.
    public var canonical: String {
        Self.prefix + String(values.map { Self.alphabet[Int($0)] })
    }

    /// `SB-XXXXX-XXXXX-XXXXX-XXXXX`, as shown to people.
    public var display: String {
        let body = values.map { Self.alphabet[Int($0)] }
        return ([Self.prefix] + stride(from: 0, to: body.count, by: 5).map { String(body[$0 ..< $0 + 5]) })
            .joined(separator: "-")
    }

    /// The bytes whose SHA-256 identifies the code: the ASCII canonical form.
    public var hashInput: [UInt8] { Array(canonical.utf8) }

    public var description: String { display }

    /// Luhn mod 32 over payload values, folded from the right starting with factor 2: each
    /// addend factor·v contributes its two base-32 digits; the check makes the sum ≡ 0 (mod 32).
    public static func checkValue(payload: some BidirectionalCollection<UInt8>) -> UInt8 {
        var sum = 0
        var factor = 2
        for v in payload.reversed() {
            let addend = factor * Int(v)
            sum += addend / 32 + addend % 32
            factor = 3 - factor
        }
        return UInt8((32 - sum % 32) % 32)
    }

    private static func value(of scalar: Unicode.Scalar) -> UInt8? {
        switch scalar {
        case "I", "L": return 1
        case "O": return 0
        default:
            guard scalar.isASCII, let index = alphabet.firstIndex(of: Character(scalar)) else { return nil }
            return UInt8(index)
        }
    }

    private static func isAlphaNumeric(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber:
            return true
        default:
            return false
        }
    }
}
