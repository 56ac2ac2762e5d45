import BadgeCore
import FuzzSupport

/// Base64url and standard base64 (RFC 4648 §5 and §4) as keys, signatures, JWS parts and
/// x5c certificates are decoded, and hex. The decoders are strict (no characters outside the
/// alphabet, no misplaced padding, zero trailing bits), so every accepted text is the one
/// canonical encoding of its bytes (hex: either case, an optional 0x): encoding what was decoded gives the text back, padded or
/// not as it came, and any bytes encode to text that decodes to them.
fuzzMain { bytes in
    let text = lossyText(bytes)
    let unpadded = String(text.reversed().drop { $0 == "=" }.reversed())
    if let decoded = Base64URL.decode(text) {
        guard Base64URL.encode(decoded, padded: false) == unpadded else { fatalError("base64url \(text) is not canonical") }
    }
    if let decoded = Base64URL.decodeStandard(text) {
        let canonical = Base64URL.encodeStandard(decoded)
        guard canonical == text || String(canonical.reversed().drop { $0 == "=" }.reversed()) == text else {
            fatalError("base64 \(text) is not canonical")
        }
    }
    // Hex of either case, with an optional 0x prefix.
    let digits = text.hasPrefix("0x") || text.hasPrefix("0X") ? String(text.dropFirst(2)) : text
    if let decoded = Hex.decode(text), Hex.encode(decoded) != digits.lowercased() {
        fatalError("hex \(text) is not what its bytes encode to")
    }
    let raw = Array(bytes)
    for padded in [true, false] {
        guard Base64URL.decode(Base64URL.encode(raw, padded: padded)) == raw else { fatalError("base64url round trip failed") }
    }
    guard Base64URL.decodeStandard(Base64URL.encodeStandard(raw)) == raw else { fatalError("base64 round trip failed") }
    guard Hex.decode(Hex.encode(raw)) == raw else { fatalError("hex round trip failed") }
}
