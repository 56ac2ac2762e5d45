import JSON
/// A JSON Type Definition schema (RFC 8927), checked against every rule of §2 and compiled
/// for validation: forms decided, refs resolved to their definitions.
///
/// A schema that compiles is valid; one that breaks any rule (unknown keyword, mixed forms,
/// bad `type`, empty/duplicate/non-string `enum`, `definitions` below the root, a `ref` to a
/// missing definition, a discriminator mapping that is not a non-nullable properties form or
/// that redeclares the tag, …) throws ``JTDSchemaError`` naming where.
public struct JTDSchema: Sendable {
    let root: JTDNode
    let definitions: [JTDNode]
    private let definitionIndex: [ExactKey: Int]
    /// Names of the root `definitions`, in schema order.
    public let definitionNames: [String]

    /// Compiles `json`, or throws naming the first rule it breaks.
    public init(_ json: JSONValue) throws(JTDSchemaError) {
        guard case .object(let rootObject) = json else {
            throw JTDSchemaError(schemaPath: [], reason: "a schema must be an object, not \(json.typeName)")
        }
        var names: [String] = []
        var index: [ExactKey: Int] = [:]
        var definitionSchemas: [JSONValue] = []
        if let definitions = rootObject["definitions"] {
            guard case .object(let members) = definitions else {
                throw JTDSchemaError(schemaPath: ["definitions"], reason: "definitions must be an object")
            }
            for m in members {
                index[ExactKey(m.key)] = names.count
                names.append(m.key)
                definitionSchemas.append(m.value)
            }
        }
        let compiler = Compiler(definitionIndex: index, hasDefinitions: rootObject.contains("definitions"))
        var compiled: [JTDNode] = []
        for (k, name) in names.enumerated() {
            compiled.append(try compiler.compile(definitionSchemas[k], path: ["definitions", name], isRoot: false))
        }
        root = try compiler.compile(json, path: [], isRoot: true)
        definitions = compiled
        definitionIndex = index
        definitionNames = names
    }

    /// Parses and compiles a schema text.
    public init(text: String) throws(JTDSchemaError) {
        let json: JSONValue
        do { json = try JSONValue.parse(text) } catch { throw JTDSchemaError(schemaPath: [], reason: error.description) }
        try self.init(json)
    }

    /// Position of the definition `name` in ``definitionNames``.
    public func definitionPosition(_ name: String) -> Int? { definitionIndex[ExactKey(name)] }

    /// Whether the definitions reference each other in a cycle. Without one, validation
    /// follows at most as many refs at once as there are definitions, so it needs no `maxDepth`.
    public var hasRecursiveDefinitions: Bool {
        // Depth-first search for a back edge in the graph "definition → refs inside it".
        var state = [UInt8](repeating: 0, count: definitions.count) // 0 new, 1 on stack, 2 done
        func visit(_ d: Int) -> Bool {
            if state[d] == 1 { return true }
            if state[d] == 2 { return false }
            state[d] = 1
            for r in definitions[d].referencedDefinitions() where visit(r) { return true }
            state[d] = 2
            return false
        }
        return (0..<definitions.count).contains { visit($0) }
    }
}

/// A schema that breaks a rule of RFC 8927 §2, and where (tokens of a JSON Pointer into the schema).
public struct JTDSchemaError: Error, Hashable, Sendable, CustomStringConvertible {
    public let schemaPath: [String]
    public let reason: String

    public init(schemaPath: [String], reason: String) {
        self.schemaPath = schemaPath
        self.reason = reason
    }

    public var description: String { "invalid JTD schema at \(JSONPointer.format(schemaPath)): \(reason)" }
}

/// The eleven JTD `type` values.
public enum JTDType: String, Sendable, CaseIterable {
    case boolean, float32, float64, int8, uint8, int16, uint16, int32, uint32, string, timestamp

    /// Inclusive range of the integer types.
    var integerRange: ClosedRange<Double>? {
        switch self {
        case .int8: -128...127
        case .uint8: 0...255
        case .int16: -32_768...32_767
        case .uint16: 0...65_535
        case .int32: -2_147_483_648...2_147_483_647
        case .uint32: 0...4_294_967_295
        default: nil
        }
    }
}

struct JTDNode: Sendable {
    var nullable: Bool
    var form: JTDForm

    func referencedDefinitions() -> [Int] {
        switch form {
        case .empty, .type, .enumeration: []
        case .ref(let index, _): [index]
        case .elements(let n), .values(let n): n.referencedDefinitions()
        case .properties(let p): (p.required + p.optional).flatMap { $0.node.referencedDefinitions() }
        case .discriminator(_, let mapping): mapping.values.flatMap { $0.referencedDefinitions() }
        }
    }
}

indirect enum JTDForm: Sendable {
    case empty
    case ref(index: Int, name: String)
    case type(JTDType)
    case enumeration(Set<ExactKey>)
    case elements(JTDNode)
    case properties(JTDProperties)
    case values(JTDNode)
    /// Mapping keys keep their exact spelling for the schema path.
    case discriminator(tag: String, mapping: [ExactKey: JTDNode])
}

struct JTDProperty: Sendable {
    let name: String
    let node: JTDNode
}

struct JTDProperties: Sendable {
    let required: [JTDProperty]
    let optional: [JTDProperty]
    let known: Set<ExactKey>
    let additionalAllowed: Bool
    /// Whether `properties` was written (decides the schema path of a non-object error).
    let hasRequiredKeyword: Bool
}

private let keywords: Set<String> = [
    "metadata", "nullable", "definitions", "ref", "type", "enum", "elements", "properties",
    "optionalProperties", "additionalProperties", "values", "discriminator", "mapping",
]

private struct Compiler {
    let definitionIndex: [ExactKey: Int]
    let hasDefinitions: Bool

    func compile(_ json: JSONValue, path: [String], isRoot: Bool) throws(JTDSchemaError) -> JTDNode {
        guard case .object(let o) = json else {
            throw JTDSchemaError(schemaPath: path, reason: "a schema must be an object, not \(json.typeName)")
        }
        for m in o where !keywords.contains(m.key) || m.key.utf8.contains(where: { $0 >= 0x80 }) {
            throw JTDSchemaError(schemaPath: path + [m.key], reason: "unknown keyword \"\(m.key)\"")
        }
        if let metadata = o["metadata"], metadata.objectValue == nil {
            throw JTDSchemaError(schemaPath: path + ["metadata"], reason: "metadata must be an object")
        }
        var nullable = false
        if let n = o["nullable"] {
            guard case .bool(let b) = n else {
                throw JTDSchemaError(schemaPath: path + ["nullable"], reason: "nullable must be a boolean")
            }
            nullable = b
        }
        if o.contains("definitions") && !isRoot {
            throw JTDSchemaError(schemaPath: path + ["definitions"], reason: "definitions are allowed only at the root")
        }

        let has = { (k: String) in o.contains(k) }
        let propertiesForm = has("properties") || has("optionalProperties")
        let forms = [has("ref"), has("type"), has("enum"), has("elements"), propertiesForm, has("values"),
                     has("discriminator") || has("mapping")].filter { $0 }.count
        if forms > 1 {
            throw JTDSchemaError(schemaPath: path, reason: "keywords of more than one form")
        }
        if has("additionalProperties") && !propertiesForm {
            throw JTDSchemaError(schemaPath: path + ["additionalProperties"],
                                 reason: "additionalProperties without properties or optionalProperties")
        }
        if has("discriminator") != has("mapping") {
            throw JTDSchemaError(schemaPath: path, reason: "discriminator and mapping must appear together")
        }

        let form: JTDForm
        if let ref = o["ref"] {
            guard case .string(let name) = ref else {
                throw JTDSchemaError(schemaPath: path + ["ref"], reason: "ref must be a string")
            }
            guard hasDefinitions else {
                throw JTDSchemaError(schemaPath: path + ["ref"], reason: "ref \"\(name)\" but the root has no definitions")
            }
            guard let index = definitionIndex[ExactKey(name)] else {
                throw JTDSchemaError(schemaPath: path + ["ref"], reason: "ref to missing definition \"\(name)\"")
            }
            form = .ref(index: index, name: name)
        } else if let type = o["type"] {
            guard case .string(let name) = type, let t = JTDType(rawValue: name) else {
                throw JTDSchemaError(schemaPath: path + ["type"], reason: "type must be one of \(JTDType.allCases.map(\.rawValue))")
            }
            form = .type(t)
        } else if let values = o["enum"] {
            guard case .array(let items) = values, !items.isEmpty else {
                throw JTDSchemaError(schemaPath: path + ["enum"], reason: "enum must be a non-empty array")
            }
            var set = Set<ExactKey>()
            for (k, item) in items.enumerated() {
                guard case .string(let s) = item else {
                    throw JTDSchemaError(schemaPath: path + ["enum", String(k)], reason: "enum values must be strings")
                }
                guard set.insert(ExactKey(s)).inserted else {
                    throw JTDSchemaError(schemaPath: path + ["enum", String(k)], reason: "enum value \"\(s)\" repeated")
                }
            }
            form = .enumeration(set)
        } else if let elements = o["elements"] {
            form = .elements(try compile(elements, path: path + ["elements"], isRoot: false))
        } else if propertiesForm {
            form = .properties(try compileProperties(o, path: path))
        } else if let values = o["values"] {
            form = .values(try compile(values, path: path + ["values"], isRoot: false))
        } else if let discriminator = o["discriminator"], let mapping = o["mapping"] {
            form = try compileDiscriminator(discriminator, mapping, path: path)
        } else {
            form = .empty
        }
        return JTDNode(nullable: nullable, form: form)
    }

    func compileMembers(_ json: JSONValue?, path: [String]) throws(JTDSchemaError) -> [JTDProperty] {
        guard let json else { return [] }
        guard case .object(let members) = json else {
            throw JTDSchemaError(schemaPath: path, reason: "\(path.last!) must be an object")
        }
        var out: [JTDProperty] = []
        for m in members {
            out.append(JTDProperty(name: m.key, node: try compile(m.value, path: path + [m.key], isRoot: false)))
        }
        return out
    }

    func compileProperties(_ o: JSONObject, path: [String]) throws(JTDSchemaError) -> JTDProperties {
        let required = try compileMembers(o["properties"], path: path + ["properties"])
        let optional = try compileMembers(o["optionalProperties"], path: path + ["optionalProperties"])
        var known = Set<ExactKey>()
        for p in required { known.insert(ExactKey(p.name)) }
        for p in optional where !known.insert(ExactKey(p.name)).inserted {
            throw JTDSchemaError(schemaPath: path + ["optionalProperties", p.name],
                                 reason: "\"\(p.name)\" is in both properties and optionalProperties")
        }
        var additional = false
        if let a = o["additionalProperties"] {
            guard case .bool(let b) = a else {
                throw JTDSchemaError(schemaPath: path + ["additionalProperties"], reason: "additionalProperties must be a boolean")
            }
            additional = b
        }
        return JTDProperties(required: required, optional: optional, known: known, additionalAllowed: additional,
                             hasRequiredKeyword: o.contains("properties"))
    }

    func compileDiscriminator(_ discriminator: JSONValue, _ mapping: JSONValue, path: [String]) throws(JTDSchemaError) -> JTDForm {
        guard case .string(let tag) = discriminator else {
            throw JTDSchemaError(schemaPath: path + ["discriminator"], reason: "discriminator must be a string")
        }
        guard case .object(let members) = mapping else {
            throw JTDSchemaError(schemaPath: path + ["mapping"], reason: "mapping must be an object")
        }
        var out: [ExactKey: JTDNode] = [:]
        for m in members {
            let p = path + ["mapping", m.key]
            let node = try compile(m.value, path: p, isRoot: false)
            guard case .properties(let props) = node.form else {
                throw JTDSchemaError(schemaPath: p, reason: "a mapping value must be of the properties form")
            }
            if node.nullable {
                throw JTDSchemaError(schemaPath: p + ["nullable"], reason: "a mapping value must not be nullable")
            }
            if props.known.contains(ExactKey(tag)) {
                throw JTDSchemaError(schemaPath: p, reason: "a mapping value redeclares the discriminator \"\(tag)\"")
            }
            out[ExactKey(m.key)] = node
        }
        return .discriminator(tag: tag, mapping: out)
    }
}
