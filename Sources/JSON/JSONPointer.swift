/// JSON Pointer (RFC 6901) text of a token path, as error messages show paths.
public enum JSONPointer {
    /// `/a/0/b~1c` for `["a", "0", "b/c"]`; the empty path is `""` (the whole document).
    public static func format(_ tokens: [String]) -> String {
        var out = ""
        for t in tokens {
            out += "/"
            if t.utf8.contains(where: { $0 == 0x7E || $0 == 0x2F }) {
                out += t.replacingOccurrences("~", "~0").replacingOccurrences("/", "~1")
            } else {
                out += t
            }
        }
        return out
    }
}

extension String {
    fileprivate func replacingOccurrences(_ target: Character, _ replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
