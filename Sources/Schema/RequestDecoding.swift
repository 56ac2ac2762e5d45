import JSON
import Locking
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

/// Requests decoded from recent bodies, by their exact bytes: the bodies every client sends
/// alike (the unsigned catalog request) are parsed and validated once rather than per request,
/// which was a third of answering that request (issue 17's profile).
///
/// It cannot change an answer: decoding is a function of the bytes alone (the schema is fixed),
/// and only bodies that decoded are kept. It is bounded: bodies up to `maxBodyBytes`, at most
/// `capacity` of them (when full it starts over, so a stream of distinct bodies costs each one
/// its decoding, as without it).
public final class RecentRequests: Sendable {
    private let requests = LockedValueBox<[[UInt8]: RPCRequest]>([:])
    /// Most bodies kept.
    public let capacity: Int
    /// Longest body kept.
    public let maxBodyBytes: Int

    /// Keeps up to `capacity` bodies of at most `maxBodyBytes` bytes.
    public init(capacity: Int = 32, maxBodyBytes: Int = 256) {
        self.capacity = capacity
        self.maxBodyBytes = maxBodyBytes
    }

    /// The request `body` decoded to, if it is kept.
    public func request(for body: [UInt8]) -> RPCRequest? {
        guard body.count <= maxBodyBytes else { return nil }
        return requests.withLock { $0[body] }
    }

    /// Keeps what `body` decoded to (nothing for a body over `maxBodyBytes`).
    public func remember(_ request: RPCRequest, for body: [UInt8]) {
        guard body.count <= maxBodyBytes, capacity > 0 else { return }
        requests.withLock { kept in
            if kept.count >= capacity, kept[body] == nil { kept.removeAll(keepingCapacity: true) }
            kept[body] = request
        }
    }

    /// How many bodies are kept now.
    public var count: Int { requests.withLock { $0.count } }
}
