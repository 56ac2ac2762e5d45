import Glibc

/// The client's `--server` address, `http://HOST[:PORT][/BASE]` (or `https://`), with an IPv6
/// literal in brackets (`http://[::1]:8080`): read by hand because Foundation on Linux refuses
/// bracketed hosts.
struct ServerURL: Equatable {
    var isHTTPS: Bool
    /// The host to connect to, without brackets.
    var host: String
    var port: Int
    /// The base path, without a trailing slash ("" at the root).
    var basePath: String
    /// The `Host` field and RFC 9421 `@authority`: the host as written (brackets kept), and the
    /// port when one was given.
    var authority: String

    /// Reads `text`; `name` (`--server`, `BADGE_SERVICE_SERVER`) says where it came from in errors.
    init(parsing text: String, named name: String = "--server") throws(UsageError) {
        let bad = { (why: String) in UsageError("\(name) \(text): \(why) (e.g. http://127.0.0.1:8080 or http://[::1]:8080)") }
        let lower = text.lowercased()
        let rest: Substring
        if lower.hasPrefix("http://") { isHTTPS = false; rest = text.dropFirst(7) }
        else if lower.hasPrefix("https://") { isHTTPS = true; rest = text.dropFirst(8) }
        else { throw bad("expected an http:// or https:// URL") }
        guard !rest.contains("?"), !rest.contains("#") else { throw bad("a query or fragment is not allowed") }
        let authorityText = rest.prefix { $0 != "/" }
        basePath = String(rest.dropFirst(authorityText.count))
        while basePath.hasSuffix("/") { basePath.removeLast() }
        guard !authorityText.contains("@") else { throw bad("user information is not allowed") }
        var portText: Substring?
        if authorityText.hasPrefix("[") {
            guard let close = authorityText.firstIndex(of: "]") else { throw bad("missing ] after the IPv6 address") }
            host = String(authorityText[authorityText.index(after: authorityText.startIndex)..<close])
            var address = in6_addr()
            guard inet_pton(AF_INET6, host, &address) == 1 else { throw bad("[\(host)] is not an IPv6 address") }
            let after = authorityText[authorityText.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw bad("expected :PORT after ]") }
                portText = after.dropFirst()
            }
        } else {
            let parts = authorityText.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { throw bad("an IPv6 address goes in brackets") }
            host = String(parts[0])
            portText = parts.count == 2 ? parts[1] : nil
        }
        guard !host.isEmpty else { throw bad("missing host") }
        if let portText {
            guard let p = Int(portText), (1...65535).contains(p) else { throw bad("the port must be 1...65535") }
            port = p
        } else {
            port = isHTTPS ? 443 : 80
        }
        authority = String(authorityText).lowercased()
    }

    /// The request-target of `path` under the base path (`/rpc`, `/prefix/rpc`).
    func target(_ path: String) -> String { basePath + path }
}
