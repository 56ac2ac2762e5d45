/// `application/x-www-form-urlencoded` as Stripe reads it: pairs in order, every byte but the
/// unreserved ones percent-encoded (brackets of `line_items[0][quantity]` included).
public enum FormEncoding {
    public static func encode(_ pairs: [(String, String)]) -> [UInt8] {
        Array(pairs.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&").utf8)
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                out.unicodeScalars.append(UnicodeScalar(byte))
            default:
                let hex = Array("0123456789ABCDEF")
                out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
            }
        }
        return out
    }
}
