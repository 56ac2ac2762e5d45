import JSON
/// Why a request body was refused before any handler ran. Every case is answered
/// `bad_request`; ``message`` is safe to send back (it names the position, never echoes values).
public struct RequestRejection: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// Not one well-formed JSON text (RFC 8259), or too deeply nested.
        case malformedJSON(JSONParseError)
        /// Valid JSON that breaks the schema's `request` definition.
        case schema(ValidationError)
        /// Schema-valid, but a value is unusable (bad base64url, wrong key length, …).
        case value(JSONDecodingError)
    }

    public let kind: Kind

    public init(_ kind: Kind) { self.kind = kind }

    /// Where in the request the problem is, as a JSON Pointer (`""` for the whole body; nil
    /// for malformed JSON, which has a byte offset instead).
    public var instancePointer: String? {
        switch kind {
        case .malformedJSON: nil
        case .schema(let e): e.instancePointer
        case .value(let e): e.instancePointer
        }
    }

    /// One line for the error response's `message` and for logs.
    public var message: String {
        switch kind {
        case .malformedJSON(let e): e.description
        case .schema(let e): "invalid request at \(e.instancePointer.isEmpty ? "/" : e.instancePointer): \(e.reasonText)"
        case .value(let e): "invalid request at \(e.instancePointer.isEmpty ? "/" : e.instancePointer): \(e.reason)"
        }
    }

    public var description: String { message }
}

extension BadgeRPCSchema {
    /// Parses, validates and decodes one request body: the gateway's whole input pipeline
    /// before authentication checks and handlers. Only the first schema error is reported.
    public func decodeRequest(_ body: [UInt8], parser: JSONParser = JSONParser()) throws(RequestRejection) -> RPCRequest {
        let json: JSONValue
        do { json = try parser.parse(body) } catch { throw RequestRejection(.malformedJSON(error)) }
        return try decodeRequest(json)
    }

    /// Validates and decodes an already parsed request.
    public func decodeRequest(_ json: JSONValue) throws(RequestRejection) -> RPCRequest {
        if let first = validateRequest(json, maxErrors: 1).first { throw RequestRejection(.schema(first)) }
        do { return try RPCRequest(json: json) } catch { throw RequestRejection(.value(error)) }
    }
}
