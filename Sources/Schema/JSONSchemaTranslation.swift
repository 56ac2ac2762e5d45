import JSON

/// A JTD schema (RFC 8927) translated to JSON Schema 2020-12 that accepts exactly the instances
/// the JTD schema accepts, so tools that read only JSON Schema or OpenAPI check the same contract.
///
/// Form by form: empty → `{}`; `ref` → `$ref` to the translated definition; `type` → `boolean`,
/// `number` (float32/float64 take any number, as in JTD), `integer` with the type's
/// `minimum`/`maximum`, `string`, or `string` with `format: date-time` (timestamp); `enum` →
/// `enum`; `elements` → `array` with `items`; properties → `object` with `properties`,
/// `required` and, unless `additionalProperties` is true, `additionalProperties: false`;
/// `values` → `object` with `additionalProperties`; `discriminator` → `oneOf` of its variants,
/// each an object whose tag is `const` its mapping key (no mapping at all → `{"not": {}}`).
/// `nullable` adds `"null"` to the `type`, `null` to the `enum`, a null branch to `oneOf`, or
/// wraps the form in `anyOf` with `{"type": "null"}`. `metadata.description` becomes
/// `description`; other metadata is dropped.
public struct JSONSchemaTranslation: Sendable {
    /// How references and discriminator variants are written.
    public struct Options: Sendable {
        /// What a reference to definition `name` starts with: `#/$defs/` for a standalone
        /// document, `#/components/schemas/` inside OpenAPI.
        public var referencePrefix: String
        /// Whether the variants of a discriminator at the top of a definition `d` become
        /// definitions of their own, `d.<tag value>`, referenced from `oneOf` and named in an
        /// OpenAPI `discriminator` object, so generated clients get one type per variant.
        /// Variants whose name would not be a valid OpenAPI component name stay inline.
        public var namedVariants: Bool

        public init(referencePrefix: String = "#/$defs/", namedVariants: Bool = false) {
            self.referencePrefix = referencePrefix
            self.namedVariants = namedVariants
        }

        /// For a standalone JSON Schema document with `$defs`.
        public static let standalone = Options()
        /// For `components.schemas` of an OpenAPI 3.1 document.
        public static let openAPI = Options(referencePrefix: "#/components/schemas/", namedVariants: true)
    }

    /// One translated definition.
    public struct Definition: Sendable {
        public let name: String
        public let schema: JSONValue
    }

    /// The translation of the root schema (`{}` for a schema that only holds definitions).
    public let root: JSONValue
    /// The translated definitions in schema order, each followed by its named variants.
    public let definitions: [Definition]

    /// Translates `jtd`, which must be a valid JTD schema (else throws naming the broken rule).
    public init(_ jtd: JSONValue, options: Options = .standalone) throws(JTDSchemaError) {
        // Compiling first means the translation only ever sees schemas RFC 8927 allows.
        _ = try JTDSchema(jtd)
        var translator = Translator(options: options)
        if case .object(let rootObject) = jtd, case .object(let defs)? = rootObject["definitions"] {
            translator.definitionNames = Set(defs.keys)
            for m in defs {
                let schema = translator.translate(m.value, definition: m.key)
                translator.output.insert(Definition(name: m.key, schema: schema), at: translator.output.count - translator.pendingVariants)
                translator.pendingVariants = 0
            }
        }
        root = translator.translate(jtd, definition: nil)
        definitions = translator.output
    }

    /// A standalone JSON Schema 2020-12 document: the root translation with `$schema` and `$defs`.
    /// Only meaningful with ``Options/standalone`` references.
    public var document: JSONValue {
        var out: JSONObject = ["$schema": "https://json-schema.org/draft/2020-12/schema"]
        for m in root.objectValue ?? [:] { out[m.key] = m.value }
        if !definitions.isEmpty {
            var defs = JSONObject()
            for d in definitions { defs[d.name] = d.schema }
            out["$defs"] = .object(defs)
        }
        return .object(out)
    }

    /// The definitions as one object, `name → schema`, as `$defs` or `components.schemas` hold them.
    public var definitionsObject: JSONObject {
        var defs = JSONObject()
        for d in definitions { defs[d.name] = d.schema }
        return defs
    }

    /// The reference to definition `name` under `options`, escaped as a JSON Pointer (RFC 6901)
    /// in a URI fragment (RFC 3986).
    public static func reference(to name: String, options: Options) -> String {
        options.referencePrefix + escapeFragment(name)
    }

    static func escapeFragment(_ name: String) -> String {
        var pointer: [UInt8] = []
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "~"): pointer += Array("~0".utf8)
            case UInt8(ascii: "/"): pointer += Array("~1".utf8)
            default: pointer.append(byte)
            }
        }
        var out = ""
        for byte in pointer {
            if fragmentSafe(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    /// RFC 3986 `pchar` less `%`: unreserved, sub-delims, `:` and `@`.
    private static func fragmentSafe(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            Array("-._~!$&'()*+,;=:@".utf8).contains(b)
        }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

/// The recursive walk. Variants hoisted while translating a definition are appended to `output`
/// first and counted in `pendingVariants`, so the definition itself can be placed before them.
private struct Translator {
    let options: JSONSchemaTranslation.Options
    var definitionNames: Set<String> = []
    var output: [JSONSchemaTranslation.Definition] = []
    var pendingVariants = 0

    mutating func translate(_ json: JSONValue, definition: String?) -> JSONValue {
        translate(json, tag: nil, topOfDefinition: definition)
    }

    /// `tag` is the discriminator tag and value when `json` is a mapping variant.
    mutating func translate(_ json: JSONValue, tag: (name: String, value: String)?, topOfDefinition: String?) -> JSONValue {
        let o = json.objectValue ?? [:]
        let nullable = o["nullable"] == .bool(true)
        var out = JSONObject()
        if case .string(let d)? = o["metadata"]?["description"] { out["description"] = .string(d) }

        if case .string(let name)? = o["ref"] {
            let reference: JSONValue = ["$ref": .string(JSONSchemaTranslation.reference(to: name, options: options))]
            if nullable {
                out["anyOf"] = [["type": "null"], reference]
            } else {
                out["$ref"] = reference["$ref"]
            }
        } else if case .string(let typeName)? = o["type"], let type = JTDType(rawValue: typeName) {
            typeKeywords(type, nullable: nullable, into: &out)
        } else if case .array(let values)? = o["enum"] {
            out["enum"] = .array(values + (nullable ? [.null] : []))
        } else if let elements = o["elements"] {
            out["type"] = Self.type("array", nullable: nullable)
            out["items"] = translate(elements, tag: nil, topOfDefinition: nil)
        } else if o.contains("properties") || o.contains("optionalProperties") {
            propertiesKeywords(o, tag: tag, nullable: nullable, into: &out)
        } else if let values = o["values"] {
            out["type"] = Self.type("object", nullable: nullable)
            out["additionalProperties"] = translate(values, tag: nil, topOfDefinition: nil)
        } else if case .string(let tagName)? = o["discriminator"], case .object(let mapping)? = o["mapping"] {
            discriminatorKeywords(tagName, mapping, nullable: nullable, definition: topOfDefinition, into: &out)
        }
        // The empty form accepts everything, null included: `{}` (with its description).
        return .object(out)
    }

    static func type(_ name: String, nullable: Bool) -> JSONValue {
        nullable ? [.string(name), "null"] : .string(name)
    }

    func typeKeywords(_ type: JTDType, nullable: Bool, into out: inout JSONObject) {
        switch type {
        case .boolean: out["type"] = Self.type("boolean", nullable: nullable)
        case .float32, .float64: out["type"] = Self.type("number", nullable: nullable)
        case .string: out["type"] = Self.type("string", nullable: nullable)
        case .timestamp:
            out["type"] = Self.type("string", nullable: nullable)
            out["format"] = "date-time"
        case .int8, .uint8, .int16, .uint16, .int32, .uint32:
            let range = type.integerRange!
            out["type"] = Self.type("integer", nullable: nullable)
            out["minimum"] = .number(JSONNumber(Int(range.lowerBound)))
            out["maximum"] = .number(JSONNumber(Int(range.upperBound)))
        }
    }

    mutating func propertiesKeywords(_ o: JSONObject, tag: (name: String, value: String)?, nullable: Bool, into out: inout JSONObject) {
        out["type"] = Self.type("object", nullable: nullable)
        var properties = JSONObject()
        var required: [JSONValue] = []
        if let tag {
            properties[tag.name] = ["const": .string(tag.value)]
            required.append(.string(tag.name))
        }
        for m in o["properties"]?.objectValue ?? [:] {
            properties[m.key] = translate(m.value, tag: nil, topOfDefinition: nil)
            required.append(.string(m.key))
        }
        for m in o["optionalProperties"]?.objectValue ?? [:] {
            properties[m.key] = translate(m.value, tag: nil, topOfDefinition: nil)
        }
        if !properties.isEmpty { out["properties"] = .object(properties) }
        if !required.isEmpty { out["required"] = .array(required) }
        if o["additionalProperties"] != .bool(true) { out["additionalProperties"] = false }
    }

    mutating func discriminatorKeywords(_ tagName: String, _ mapping: JSONObject, nullable: Bool, definition: String?,
                                        into out: inout JSONObject) {
        guard !mapping.isEmpty else {
            // No tag value is accepted, so no object is: only null, when nullable.
            if nullable { out["type"] = "null" } else { out["not"] = [:] }
            return
        }
        var branches: [JSONValue] = nullable ? [["type": "null"]] : []
        var named = JSONObject()
        for m in mapping {
            let variant = translate(m.value, tag: (tagName, m.key), topOfDefinition: nil)
            if let definition, let name = variantName(definition, m.key) {
                output.append(.init(name: name, schema: variant))
                pendingVariants += 1
                let reference = JSONSchemaTranslation.reference(to: name, options: options)
                branches.append(["$ref": .string(reference)])
                named[m.key] = .string(reference)
            } else {
                branches.append(variant)
            }
        }
        out["oneOf"] = .array(branches)
        // OpenAPI's discriminator object may only name referenced schemas.
        if named.count == mapping.count && !nullable {
            out["discriminator"] = ["propertyName": .string(tagName), "mapping": .object(named)]
        }
    }

    /// `definition.value` when variants are named and that is a valid, unused component name.
    func variantName(_ definition: String, _ value: String) -> String? {
        guard options.namedVariants else { return nil }
        let name = definition + "." + value
        let valid = name.utf8.allSatisfy { b in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) || b == UInt8(ascii: ".") || b == UInt8(ascii: "-")
                || b == UInt8(ascii: "_")
        }
        return valid && !definitionNames.contains(name) && !output.contains(where: { $0.name == name }) ? name : nil
    }
}
