/// Who a request is from, for every per-address limit: the TCP peer, or, when the peer is a
/// trusted proxy, the client its forwarding headers name. Pure.
///
/// From a trusted peer, the chain is `Forwarded`'s `for=` values (RFC 7239) when that field is
/// present, else `X-Forwarded-For`'s entries, left (the original client) to right (the hop
/// nearest to us). Walking from the right, trusted proxies are skipped and the first address
/// that is not one is the client; when every address is trusted, the left-most one. An
/// `unknown` or obfuscated node (or a `Forwarded` element without `for=`) cannot be walked past:
/// the client is then the trusted address right of it (the proxy that could not name its own
/// client), which is the peer when it is the last entry. A missing, empty or malformed field:
/// the peer. From a peer that is not trusted, the fields are ignored: anyone can send them.
public enum ClientAddress {
    /// The client of a request from `peer` carrying `headers`.
    public static func resolve(peer: IPAddress, headers: HTTPHeaders, trusted: TrustedProxies) -> IPAddress {
        guard trusted.contains(peer) else { return peer }
        let chain: [Node]?
        let forwarded = headers.values(for: "Forwarded")
        if !forwarded.isEmpty {
            chain = forwardedChain(forwarded)
        } else {
            let xff = headers.values(for: "X-Forwarded-For")
            guard !xff.isEmpty else { return peer }
            chain = forwardedForChain(xff)
        }
        guard let chain else { return peer }
        var client = peer
        for node in chain.reversed() {
            guard case .address(let address) = node else { return client }
            client = address
            if !trusted.contains(address) { return address }
        }
        return client
    }

    /// One hop a forwarding header names.
    enum Node: Equatable {
        case address(IPAddress)
        /// `unknown`, an obfuscated identifier (`_hidden`), or no `for=` at all.
        case unnamed
    }

    // MARK: X-Forwarded-For

    /// `X-Forwarded-For` entries: addresses, IPv6 optionally in brackets, either optionally with
    /// a port, and `unknown`; empty list elements are ignored (RFC 9110 §5.6.1). Nil: malformed.
    static func forwardedForChain(_ lines: [String]) -> [Node]? {
        var chain: [Node] = []
        for line in lines {
            for raw in line.split(separator: ",", omittingEmptySubsequences: false) {
                let entry = raw.trimmingSpaces
                if entry.isEmpty { continue }
                guard let node = node(entry, bracketsRequiredForIPv6: false, obfuscationAllowed: false) else { return nil }
                chain.append(node)
            }
        }
        return chain
    }

    // MARK: Forwarded (RFC 7239)

    /// The `for=` node of each `Forwarded` element, in order. Nil: malformed (a syntax error, a
    /// parameter twice in one element, a `for=` that is not a node).
    static func forwardedChain(_ lines: [String]) -> [Node]? {
        var chain: [Node] = []
        for line in lines {
            guard let elements = ForwardedSyntax.elements(Array(line.utf8)) else { return nil }
            for pairs in elements {
                var names = Set<String>()
                var forValue: String?
                for (name, value) in pairs {
                    guard names.insert(name).inserted else { return nil }
                    if name == "for" { forValue = value }
                }
                // An empty element (`a, , b`) is an empty list element, not a hop.
                if pairs.isEmpty { continue }
                guard let forValue else {
                    chain.append(.unnamed)
                    continue
                }
                guard let node = node(Substring(forValue), bracketsRequiredForIPv6: true, obfuscationAllowed: true) else { return nil }
                chain.append(node)
            }
        }
        return chain
    }

    /// A node: `192.0.2.7`, `[2001:db8::1]`, `unknown` or `_obfuscated`, each optionally with
    /// `:port` (digits, or `_obfuscated` in `Forwarded`). A bare IPv6 address is allowed only in
    /// `X-Forwarded-For`, where there is then no port.
    static func node(_ text: Substring, bracketsRequiredForIPv6: Bool, obfuscationAllowed: Bool) -> Node? {
        var host = text
        var port: Substring?
        if text.first == "[" {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let inside = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard let address = IPAddress(inside), !address.isIPv4 || inside.contains(":") else { return nil }
            if !rest.isEmpty {
                guard rest.first == ":" else { return nil }
                guard validPort(rest.dropFirst(), obfuscationAllowed: obfuscationAllowed) else { return nil }
            }
            return .address(address)
        }
        let colons = text.filter { $0 == ":" }.count
        if colons > 1 {
            // A bare IPv6 address, with no room for a port.
            guard !bracketsRequiredForIPv6, let address = IPAddress(text), !address.isIPv4 || text.contains(".") else { return nil }
            return .address(address)
        }
        if colons == 1, let colon = text.firstIndex(of: ":") {
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        if let port, !validPort(port, obfuscationAllowed: obfuscationAllowed) { return nil }
        if host.lowercased() == "unknown" { return .unnamed }
        if host.first == "_" {
            guard obfuscationAllowed, isObfuscated(host) else { return nil }
            return .unnamed
        }
        // Only dotted IPv4 here: an IPv6 literal needs brackets (or no port, above).
        guard host.contains("."), let address = IPAddress(host), address.isIPv4 else { return nil }
        return .address(address)
    }

    /// `1*5DIGIT`, or an obfuscated port (RFC 7239 §6).
    static func validPort(_ text: Substring, obfuscationAllowed: Bool) -> Bool {
        if obfuscationAllowed, text.first == "_" { return isObfuscated(text) }
        return (1...5).contains(text.utf8.count) && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }

    /// `"_" 1*(ALPHA / DIGIT / "." / "_" / "-")`.
    static func isObfuscated(_ text: Substring) -> Bool {
        text.first == "_" && text.utf8.count > 1 && text.utf8.dropFirst().allSatisfy { c in
            (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || c == 0x2E || c == 0x5F || c == 0x2D
        }
    }
}

/// The `Forwarded` field's syntax (RFC 7239 §4): `1#forwarded-element`, each element
/// `forwarded-pair *( ";" forwarded-pair )`, a pair `token "=" ( token / quoted-string )`.
enum ForwardedSyntax {
    /// The elements of one field line, each as its (lower-cased name, unquoted value) pairs;
    /// nil when the line does not follow the grammar.
    static func elements(_ bytes: [UInt8]) -> [[(String, String)]]? {
        var elements: [[(String, String)]] = []
        var pairs: [(String, String)] = []
        var i = 0
        func skipSpaces() { while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 } }
        func token() -> String? {
            let start = i
            while i < bytes.count, HTTPGrammar.isTokenChar(bytes[i]) { i += 1 }
            return i > start ? String(decoding: bytes[start..<i], as: UTF8.self) : nil
        }
        while true {
            skipSpaces()
            // An empty pair (`for=x;;proto=http;`) is allowed: `*( ";" [ forwarded-pair ] )`.
            if i < bytes.count, bytes[i] == 0x3B {
                i += 1
                continue
            }
            if i < bytes.count, bytes[i] != 0x2C {
                guard let name = token(), i < bytes.count, bytes[i] == 0x3D else { return nil }
                i += 1
                let value: String
                if i < bytes.count, bytes[i] == 0x22 {
                    i += 1
                    var unquoted: [UInt8] = []
                    var closed = false
                    while i < bytes.count {
                        let c = bytes[i]
                        if c == 0x22 { closed = true; i += 1; break }
                        if c == 0x5C {
                            i += 1
                            guard i < bytes.count, bytes[i] == 0x09 || bytes[i] >= 0x20 && bytes[i] != 0x7F else { return nil }
                        } else {
                            guard c == 0x09 || c >= 0x20 && c != 0x7F else { return nil }
                        }
                        unquoted.append(bytes[i])
                        i += 1
                    }
                    guard closed else { return nil }
                    value = String(decoding: unquoted, as: UTF8.self)
                } else {
                    guard let v = token() else { return nil }
                    value = v
                }
                pairs.append((name.lowercased(), value))
                skipSpaces()
                if i < bytes.count, bytes[i] == 0x3B {
                    i += 1
                    continue
                }
            }
            guard i >= bytes.count || bytes[i] == 0x2C else { return nil }
            elements.append(pairs)
            pairs = []
            if i >= bytes.count { return elements }
            i += 1
        }
    }
}
