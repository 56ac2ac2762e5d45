import BadgeCore
import JSON

extension JTDSchema {
    /// Validates `instance` against the root schema (RFC 8927 §3.3); `[]` means valid.
    public func validate(_ instance: JSONValue, options: JTDValidationOptions = .init()) throws(JTDMaxDepthExceeded) -> [ValidationError] {
        let run = run(root, instance, options)
        if run.depthExceeded { throw JTDMaxDepthExceeded(maxDepth: options.maxDepth) }
        return run.errors
    }

    /// Validates `instance` against the definition `name`, as the schema `{"ref": name}` would:
    /// schema paths start `["definitions", name]`. Nil when there is no such definition.
    public func validate(_ instance: JSONValue, definition name: String,
                         options: JTDValidationOptions = .init()) throws(JTDMaxDepthExceeded) -> [ValidationError]? {
        guard let index = definitionPosition(name) else { return nil }
        let run = run(JTDNode(nullable: false, form: .ref(index: index, name: name)), instance, options)
        if run.depthExceeded { throw JTDMaxDepthExceeded(maxDepth: options.maxDepth) }
        return run.errors
    }

    /// Validation against a definition without a ref limit, which cannot fail to finish when
    /// the schema has no recursive definitions (see ``hasRecursiveDefinitions``).
    func errors(of instance: JSONValue, againstDefinition index: Int, maxErrors: Int) -> [ValidationError] {
        let node = JTDNode(nullable: false, form: .ref(index: index, name: definitionNames[index]))
        return run(node, instance, JTDValidationOptions(maxDepth: 0, maxErrors: maxErrors)).errors
    }

    private func run(_ node: JTDNode, _ instance: JSONValue, _ options: JTDValidationOptions) -> ValidationRun {
        var run = ValidationRun(schema: self, options: options)
        // Most instances are valid: a pass that keeps no paths settles those without building
        // the error run's path stacks (which cost most of validating a request, issue 17).
        var check = ValidityCheck(definitions: definitions, maxDepth: options.maxDepth)
        if check.isValid(node, instance, parentTag: nil) { return run }
        run.validate(node, instance, parentTag: nil)
        return run
    }
}

/// An instance path token: kept unconverted so that array indices become strings only
/// when an error is reported.
private enum InstanceToken {
    case key(String)
    case index(Int)

    var text: String {
        switch self {
        case .key(let k): k
        case .index(let i): String(i)
        }
    }
}

/// The state of one validation: the two paths as stacks, and the errors so far.
///
/// A ref starts a new schema-path frame (`["definitions", name, …]`), as RFC 8927 reports
/// errors inside definitions; frames share one token stack and `frameBase` marks where the
/// current one starts.
private struct ValidationRun {
    let definitions: [JTDNode]
    let maxDepth: Int
    let maxErrors: Int
    var instanceTokens: [InstanceToken] = []
    var schemaTokens: [String] = []
    var frameBase = 0
    var refDepth = 0
    var errors: [ValidationError] = []
    /// Set when `maxErrors` is reached or `maxDepth` exceeded: everything unwinds.
    var stopped = false
    var depthExceeded = false

    init(schema: JTDSchema, options: JTDValidationOptions) {
        definitions = schema.definitions
        maxDepth = options.maxDepth
        maxErrors = options.maxErrors
        instanceTokens.reserveCapacity(16)
        schemaTokens.reserveCapacity(32)
    }

    mutating func report(_ reason: ValidationError.Reason, _ schemaSuffix: String...) {
        let schemaPath = Array(schemaTokens[frameBase...]) + schemaSuffix
        errors.append(ValidationError(instancePath: instanceTokens.map(\.text), schemaPath: schemaPath, reason: reason))
        if maxErrors > 0 && errors.count >= maxErrors { stopped = true }
    }

    mutating func reportAdditional(_ key: String) {
        instanceTokens.append(.key(key))
        report(.additionalProperty(key))
        instanceTokens.removeLast()
    }

    mutating func validate(_ node: JTDNode, _ instance: JSONValue, parentTag: String?) {
        if stopped { return }
        if node.nullable, case .null = instance { return }
        switch node.form {
        case .empty:
            return

        case .ref(let index, let name):
            if maxDepth > 0 && refDepth >= maxDepth {
                depthExceeded = true
                stopped = true
                return
            }
            let savedBase = frameBase
            frameBase = schemaTokens.count
            schemaTokens.append("definitions")
            schemaTokens.append(name)
            refDepth += 1
            validate(definitions[index], instance, parentTag: nil)
            refDepth -= 1
            schemaTokens.removeLast(2)
            frameBase = savedBase

        case .type(let type):
            if !Self.matches(type, instance) { report(.wrongType(type), "type") }

        case .enumeration(let values):
            guard case .string(let s) = instance, values.contains(ExactKey(s)) else { report(.notInEnum, "enum"); return }

        case .elements(let element):
            guard case .array(let items) = instance else { report(.notArray, "elements"); return }
            schemaTokens.append("elements")
            for (i, item) in items.enumerated() {
                if stopped { break }
                instanceTokens.append(.index(i))
                validate(element, item, parentTag: nil)
                instanceTokens.removeLast()
            }
            schemaTokens.removeLast()

        case .properties(let p):
            guard case .object(let object) = instance else {
                report(.notObject, p.hasRequiredKeyword ? "properties" : "optionalProperties")
                return
            }
            validateProperties(p, object, parentTag: parentTag)

        case .values(let valueSchema):
            guard case .object(let object) = instance else { report(.notObject, "values"); return }
            schemaTokens.append("values")
            for m in object {
                if stopped { break }
                instanceTokens.append(.key(m.key))
                validate(valueSchema, m.value, parentTag: nil)
                instanceTokens.removeLast()
            }
            schemaTokens.removeLast()

        case .discriminator(let tag, let mapping):
            guard case .object(let object) = instance else { report(.notObject, "discriminator"); return }
            guard let tagValue = object[tag] else { report(.missingTag(tag), "discriminator"); return }
            instanceTokens.append(.key(tag))
            guard case .string(let tagString) = tagValue else {
                report(.tagNotString(tag), "discriminator")
                instanceTokens.removeLast()
                return
            }
            guard let variant = mapping[ExactKey(tagString)] else {
                report(.unknownTagValue(tag: tag, value: tagString), "mapping")
                instanceTokens.removeLast()
                return
            }
            instanceTokens.removeLast()
            schemaTokens.append("mapping")
            schemaTokens.append(tagString)
            validate(variant, instance, parentTag: tag)
            schemaTokens.removeLast(2)
        }
    }

    mutating func validateProperties(_ p: JTDProperties, _ object: JSONObject, parentTag: String?) {
        if !p.required.isEmpty {
            schemaTokens.append("properties")
            for prop in p.required {
                if stopped { break }
                schemaTokens.append(prop.name)
                if let value = object[prop.name] {
                    instanceTokens.append(.key(prop.name))
                    validate(prop.node, value, parentTag: nil)
                    instanceTokens.removeLast()
                } else {
                    report(.missingProperty(prop.name))
                }
                schemaTokens.removeLast()
            }
            schemaTokens.removeLast()
        }
        if !p.optional.isEmpty {
            schemaTokens.append("optionalProperties")
            for prop in p.optional {
                if stopped { break }
                if let value = object[prop.name] {
                    schemaTokens.append(prop.name)
                    instanceTokens.append(.key(prop.name))
                    validate(prop.node, value, parentTag: nil)
                    instanceTokens.removeLast()
                    schemaTokens.removeLast()
                }
            }
            schemaTokens.removeLast()
        }
        if !p.additionalAllowed {
            for m in object {
                if stopped { break }
                if p.known.contains(ExactKey(m.key)) { continue }
                if let parentTag, exactlyEqual(parentTag, m.key) { continue }
                reportAdditional(m.key)
            }
        }
    }

    static func matches(_ type: JTDType, _ instance: JSONValue) -> Bool {
        switch (type, instance) {
        case (.boolean, .bool): return true
        case (.float32, .number), (.float64, .number): return true
        case (.string, .string): return true
        case (.timestamp, .string(let s)): return RFC3339.isValid(s)
        case (_, .number(let n)):
            guard let range = type.integerRange else { return false }
            return n.isInteger && range.contains(n.value)
        default: return false
        }
    }
}

/// Whether an instance is valid, decided exactly as ``ValidationRun`` decides it (same forms,
/// same ref-depth limit) but keeping no paths and stopping at the first failure. Only when it
/// says no does the full run look again, to say why.
private struct ValidityCheck {
    let definitions: [JTDNode]
    let maxDepth: Int
    var refDepth = 0

    mutating func isValid(_ node: JTDNode, _ instance: JSONValue, parentTag: String?) -> Bool {
        if node.nullable, case .null = instance { return true }
        switch node.form {
        case .empty:
            return true
        case .ref(let index, _):
            // Past the limit the full run reports the depth; "not valid" sends it there.
            if maxDepth > 0 && refDepth >= maxDepth { return false }
            refDepth += 1
            defer { refDepth -= 1 }
            return isValid(definitions[index], instance, parentTag: nil)
        case .type(let type):
            return ValidationRun.matches(type, instance)
        case .enumeration(let values):
            guard case .string(let s) = instance else { return false }
            return values.contains(ExactKey(s))
        case .elements(let element):
            guard case .array(let items) = instance else { return false }
            for item in items where !isValid(element, item, parentTag: nil) { return false }
            return true
        case .properties(let p):
            guard case .object(let object) = instance else { return false }
            return propertiesValid(p, object, parentTag: parentTag)
        case .values(let valueSchema):
            guard case .object(let object) = instance else { return false }
            for m in object where !isValid(valueSchema, m.value, parentTag: nil) { return false }
            return true
        case .discriminator(let tag, let mapping):
            guard case .object(let object) = instance, case .string(let tagString)? = object[tag],
                  let variant = mapping[ExactKey(tagString)]
            else { return false }
            return isValid(variant, instance, parentTag: tag)
        }
    }

    mutating func propertiesValid(_ p: JTDProperties, _ object: JSONObject, parentTag: String?) -> Bool {
        // With the few properties of a request, comparing names beats hashing each key.
        if !p.additionalAllowed && p.required.count + p.optional.count <= 16 {
            return closedPropertiesValid(p, object, parentTag: parentTag)
        }
        for prop in p.required {
            guard let value = object[prop.name], isValid(prop.node, value, parentTag: nil) else { return false }
        }
        for prop in p.optional {
            if let value = object[prop.name], !isValid(prop.node, value, parentTag: nil) { return false }
        }
        guard !p.additionalAllowed else { return true }
        // Every member declared (or the discriminator's tag), looked up by hash among the many.
        for m in object {
            if let parentTag, exactlyEqual(parentTag, m.key) { continue }
            if !p.known.contains(ExactKey(m.key)) { return false }
        }
        return true
    }

    /// `propertiesValid` for a closed object of few properties, in one pass over its members:
    /// each must be declared (or be the discriminator's tag) and valid, and every required one
    /// present. A JSON object holds each key once (the parser refuses repeats), so counting the
    /// required members met tells whether all are. The two passes (required then members)
    /// compared every name twice (issue 17's profile).
    private mutating func closedPropertiesValid(_ p: JTDProperties, _ object: JSONObject, parentTag: String?) -> Bool {
        var requiredMet = 0
        for m in object {
            if let parentTag, exactlyEqual(parentTag, m.key) { continue }
            if let prop = p.required.first(where: { exactlyEqual($0.name, m.key) }) {
                guard isValid(prop.node, m.value, parentTag: nil) else { return false }
                requiredMet += 1
            } else if let prop = p.optional.first(where: { exactlyEqual($0.name, m.key) }) {
                guard isValid(prop.node, m.value, parentTag: nil) else { return false }
            } else {
                return false
            }
        }
        return requiredMet == p.required.count
    }
}
