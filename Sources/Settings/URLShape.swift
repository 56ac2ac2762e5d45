/// The shape a URL key must have, checked by its text alone (no resolver, no connection), so
/// `config check` refuses what could never be called.
public enum URLShape {
    static let absoluteForm = "an absolute http:// or https:// URL with a host, e.g. https://pay.example.com"

    /// `http://` or `https://` (any case), a host (a name, an IPv4 address or an `[IPv6]`
    /// literal) with an optional port 1-65535, and no space or control character anywhere.
    public static func absolute(_ text: String) throws(SettingRejection) {
        let refused = SettingRejection(expected: absoluteForm)
        let lower = text.lowercased()
        guard let scheme = ["https://", "http://"].first(where: { lower.hasPrefix($0) }),
              !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F })
        else { throw refused }
        let rest = text.dropFirst(scheme.count)
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let host: Substring, port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw refused }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw refused }
            port = after.isEmpty ? nil : after.dropFirst()
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        } else {
            host = authority
            port = nil
        }
        guard !host.isEmpty else { throw refused }
        if let port {
            guard let number = Int(port), port.allSatisfy(\.isASCII), (1...65535).contains(number) else { throw refused }
        }
    }

    /// A base URL the service appends its API paths to: absolute, without a query or fragment
    /// (which would end up in the middle of every call's URL), and not already ending in
    /// `apiPath` (the service appends `/api/v1` to BTCPay's base itself).
    public static func base(_ text: String, apiPath: String?) throws(SettingRejection) {
        let form = "the server's base URL: " + absoluteForm + ", without a query or fragment"
            + (apiPath.map { ", and without \($0) (the service appends it)" } ?? "")
        do { try absolute(text) } catch { throw SettingRejection(expected: form) }
        guard !text.contains("?"), !text.contains("#") else { throw SettingRejection(expected: form) }
        if let apiPath {
            var path = Substring(text)
            while path.hasSuffix("/") { path.removeLast() }
            guard !path.hasSuffix(apiPath), !text.contains(apiPath + "/") else { throw SettingRejection(expected: form) }
        }
    }
}
