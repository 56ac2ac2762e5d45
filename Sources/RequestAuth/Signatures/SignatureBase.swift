// RFC 9421 §2: the signature base a signer signs and a verifier rebuilds from the received
// message. One line per covered component, `"@signature-params"` last, lines joined by LF
// with no trailing LF. Everything unusual is refused rather than guessed at.

/// Why the signature base for a Signature-Input member cannot be built.
package enum SignatureBaseError: Error, Hashable, Sendable {
    /// A covered component is not an sf-string, is empty, or names a field in upper case.
    case malformedComponent
    /// The same component (name and parameters, in any order) is covered twice.
    case duplicateComponent
    /// A component or component parameter this verifier does not implement (`@status`, `req`, `tr`, `@query-param`…).
    case unsupportedComponent
    /// `"@signature-params"` appears among the covered components.
    case signatureParamsCovered
    /// A covered field (or dictionary member) is not in the message.
    case absentField
    /// A component value cannot appear in a signature base (control characters, non-ASCII, malformed `sf`/`key` field).
    case invalidComponentValue
}

/// What makes two covered components the same (§2): the name and the parameters, in any order.
package struct ComponentIdentity: Hashable, Sendable {
    package let name: String
    package let parameters: Set<SFParameters.Entry>

    package init(name: String, parameters: SFParameters) {
        self.name = name
        self.parameters = Set(parameters.entries)
    }

    /// Whether `components[i]` is the same component as one before it. Pairwise, comparing
    /// parameter sets only for equal names: the checks cap the components at
    /// `maximumCoveredComponents`, and no set is built for the usual ones without parameters.
    package static func repeats(_ components: [SFItem], at i: Int) -> Bool {
        for j in components.startIndex..<i where components[i].bareItem == components[j].bareItem {
            let a = components[i].parameters, b = components[j].parameters
            if a.isEmpty && b.isEmpty { return true }
            if a.entries.count == b.entries.count, Set(a.entries) == Set(b.entries) { return true }
        }
        return false
    }
}

/// Builds RFC 9421 signature bases.
package enum SignatureBase {
    /// Dictionary-typed fields `sf` and `key` may be applied to. `sf` on other fields is refused
    /// because re-serialising needs the field's registered type.
    static let dictionaryFields: Set<String> = [
        "content-digest", "repr-digest", "want-content-digest", "want-repr-digest", "signature", "signature-input",
    ]

    /// The signature base for `input` (the parsed Signature-Input member: covered components
    /// plus signature parameters) over `request`.
    package static func build(for request: SignedRequest, input: SFInnerList) throws(SignatureBaseError) -> String {
        String(decoding: try bytes(for: request, input: input), as: UTF8.self)
    }

    /// ``build(for:input:)`` as the bytes a signature covers, written into one buffer.
    package static func bytes(for request: SignedRequest, input: SFInnerList) throws(SignatureBaseError) -> [UInt8] {
        var base: [UInt8] = []
        base.reserveCapacity(512)
        let items = input.items
        for (i, component) in items.enumerated() {
            guard case .string(let name) = component.bareItem, !name.isEmpty else { throw .malformedComponent }
            if name == "@signature-params" { throw .signatureParamsCovered }
            if ComponentIdentity.repeats(items, at: i) { throw .duplicateComponent }
            let value = name.utf8.first == UInt8(ascii: "@")
                ? try derivedValue(name, parameters: component.parameters, request: request)
                : try fieldValue(name, parameters: component.parameters, request: request)
            do { try StructuredFieldSerializer.write(component, into: &base) } catch { throw .malformedComponent }
            base.append(contentsOf: [UInt8(ascii: ":"), 0x20])
            base.append(contentsOf: value.utf8)
            base.append(0x0A)
        }
        base.append(contentsOf: "\"@signature-params\": ".utf8)
        do { try StructuredFieldSerializer.write(input, into: &base) } catch { throw .malformedComponent }
        return base
    }

    // MARK: Derived components (§2.2)

    static func derivedValue(_ name: String, parameters: SFParameters, request: SignedRequest) throws(SignatureBaseError) -> String {
        // No derived component we implement takes parameters; `req` (responses) and `@query-param` are out of scope.
        guard parameters.isEmpty else { throw .unsupportedComponent }
        let path = request.path.isEmpty ? "/" : request.path
        let querySuffix = request.query.map { "?" + $0 } ?? ""
        let value: String
        switch name {
        case "@method": value = request.method
        case "@authority": value = normalisedAuthority(request.authority, scheme: request.scheme)
        case "@scheme": value = asciiLowercased(request.scheme)
        case "@target-uri":
            value = asciiLowercased(request.scheme) + "://" + normalisedAuthority(request.authority, scheme: request.scheme)
                + path + querySuffix
        case "@request-target": value = path + querySuffix
        case "@path": value = path
        case "@query": value = "?" + (request.query ?? "")
        default: throw .unsupportedComponent
        }
        // Derived values are visible ASCII (spaces in a target are percent-encoded); anything else is a forged message.
        guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else { throw .invalidComponentValue }
        return value
    }

    /// `@authority` (§2.2.3): host lowercased, the scheme's default port omitted (RFC 3986 §6.2.3).
    static func normalisedAuthority(_ hostField: String, scheme: String) -> String {
        let authority = asciiLowercased(trimOWS(hostField))
        let host: Substring, port: Substring?
        if authority.hasPrefix("["), let close = authority.lastIndex(of: "]") {
            host = authority[...close]
            let rest = authority[authority.index(after: close)...]
            port = rest.hasPrefix(":") ? rest.dropFirst() : nil
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        } else {
            host = authority[...]
            port = nil
        }
        guard let port, !port.isEmpty else { return String(host) }
        let defaultPort: Int? = switch asciiLowercased(scheme) {
        case "http": 80
        case "https": 443
        default: nil
        }
        if let n = Int(port), n == defaultPort { return String(host) }
        return "\(host):\(port)"
    }

    // MARK: HTTP fields (§2.1)

    static func fieldValue(_ name: String, parameters: SFParameters, request: SignedRequest) throws(SignatureBaseError) -> String {
        guard name == asciiLowercased(name) else { throw .malformedComponent }
        let lines = request.fieldLines(name).map(trimOWS)
        guard !lines.isEmpty else { throw .absentField }
        for line in lines {
            // HTAB is allowed inside a field value (§2.1); other controls, LF above all, would forge lines.
            guard line.utf8.allSatisfy({ ($0 >= 0x20 && $0 <= 0x7E) || $0 == 0x09 }) else { throw .invalidComponentValue }
        }
        let combined = lines.joined(separator: ", ")
        let keys = Set(parameters.keys)
        if keys.isEmpty { return combined }

        if keys == ["bs"] {
            guard parameters["bs"] == .boolean(true) else { throw .unsupportedComponent }
            // §2.1.3: each line wrapped as a byte sequence, the results serialised as a List.
            let members = lines.map { SFMember.item(SFItem(.byteSequence(Array($0.utf8)))) }
            guard let text = try? StructuredFieldSerializer.list(members) else { throw .invalidComponentValue }
            return text
        }
        guard keys.isSubset(of: ["sf", "key"]), parameters["sf"] ?? .boolean(true) == .boolean(true),
              dictionaryFields.contains(name)
        else { throw .unsupportedComponent }
        guard let dict = try? StructuredFieldParser.dictionary(combined) else { throw .invalidComponentValue }
        if let key = parameters["key"] {
            // §2.1.2: the named member, re-serialised with its parameters.
            guard case .string(let memberKey) = key else { throw .unsupportedComponent }
            guard let member = dict[memberKey] else { throw .absentField }
            guard let text = try? StructuredFieldSerializer.member(member) else { throw .invalidComponentValue }
            return text
        }
        // §2.1.1: the whole field re-serialised strictly.
        guard let text = try? StructuredFieldSerializer.dictionary(dict) else { throw .invalidComponentValue }
        return text
    }
}
