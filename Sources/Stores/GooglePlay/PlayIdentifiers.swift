/// The identifier grammars checked before Play is asked anything.
///
/// Product ids follow what Play documents (a lowercase letter or digit, then `a-z0-9_.`), so one
/// outside it names no product of this app: `receipt_invalid`. Play documents no token grammar;
/// ours (`[A-Za-z0-9._-]{1,4096}`, not only dots) is a guess, so a token outside it is never sent
/// and answered `provider_unavailable`, not called invalid.
public enum PlayIdentifiers {
    /// The longest product id accepted (Play's console limit, with margin).
    public static let maxProductIDLength = 150
    /// The longest purchase token sent (observed tokens are about 150–200 characters).
    public static let maxTokenLength = 4096

    /// Checks a one-time or subscription product id.
    public static func checkProductID(_ id: String) throws(PlayRefusal) {
        let bytes = Array(id.utf8)
        guard let first = bytes.first else { throw .invalid("empty product id") }
        guard bytes.count <= maxProductIDLength else { throw .invalid("product id longer than \(maxProductIDLength) characters") }
        guard isLowerOrDigit(first) else { throw .invalid("product id does not start with a-z or 0-9") }
        guard bytes.allSatisfy({ isLowerOrDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") }) else {
            throw .invalid("product id has a character outside a-z 0-9 _ .")
        }
    }

    /// Checks a purchase token before it goes into a URL path.
    public static func checkToken(_ token: String) throws(PlayRefusal) {
        let bytes = Array(token.utf8)
        guard !bytes.isEmpty, bytes.count <= maxTokenLength else {
            throw .unavailable("purchase token of \(bytes.count) bytes is not sent (1...\(maxTokenLength))")
        }
        guard bytes.allSatisfy(isTokenByte) else { throw .unavailable("purchase token has a character outside A-Za-z0-9._- and is not sent") }
        // A path segment of only dots is resolved away by URL normalisation.
        guard !bytes.allSatisfy({ $0 == UInt8(ascii: ".") }) else { throw .unavailable("purchase token of only dots is not sent") }
    }

    /// Whether `name` reads as an Android package name (`chat.simplex.app`).
    public static func isPackageName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return false }
        return parts.allSatisfy { part in
            guard let first = part.utf8.first, isLetter(first) else { return false }
            return part.utf8.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") }
        }
    }

    private static func isLowerOrDigit(_ b: UInt8) -> Bool { (b >= 0x61 && b <= 0x7a) || isDigit(b) }
    private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    private static func isLetter(_ b: UInt8) -> Bool { (b >= 0x61 && b <= 0x7a) || (b >= 0x41 && b <= 0x5a) }
    private static func isTokenByte(_ b: UInt8) -> Bool {
        isLetter(b) || isDigit(b) || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
    }
}
