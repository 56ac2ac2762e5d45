import Foundation
import JSON

/// A Google service-account JSON key file: the fields the JWT bearer grant needs.
public struct ServiceAccountKey: Sendable {
    /// `client_email`: the assertion's issuer.
    public let clientEmail: String
    /// `private_key_id`: the assertion header's `kid`.
    public let privateKeyID: String?
    /// `token_uri` as the file states it (the configured token URL takes precedence).
    public let tokenURI: String?
    /// The RSA key that signs assertions.
    let signer: RS256Signer

    /// Reads the JSON text of a key file. Errors name the field, never its value.
    public init(json bytes: [UInt8]) throws(ServiceAccountKeyError) {
        let value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch { throw ServiceAccountKeyError("is not JSON (\(error))") }
        guard case .object(let object) = value else { throw ServiceAccountKeyError("is not a JSON object") }
        func text(_ key: String) -> String? { object[key]?.stringValue }
        if let type = text("type"), type != "service_account" {
            throw ServiceAccountKeyError("has type \"\(type)\", not \"service_account\"")
        }
        guard let email = text("client_email"), !email.isEmpty else { throw ServiceAccountKeyError("has no client_email") }
        guard let pem = text("private_key"), !pem.isEmpty else { throw ServiceAccountKeyError("has no private_key") }
        do { signer = try RS256Signer(pem: pem) } catch { throw ServiceAccountKeyError("private_key \(error.reason)") }
        clientEmail = email
        privateKeyID = text("private_key_id")
        tokenURI = text("token_uri")
    }

    /// Reads a key file; errors name the path.
    public init(contentsOf path: String) throws(ServiceAccountKeyError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ServiceAccountKeyError("\(path): cannot be read")
        }
        do { try self.init(json: [UInt8](data)) } catch { throw ServiceAccountKeyError("\(path): \(error.reason)") }
    }
}

/// Why a service-account key file cannot be used; one line, never the key.
public struct ServiceAccountKeyError: Error, Sendable, CustomStringConvertible {
    public let reason: String
    init(_ reason: String) { self.reason = reason }
    public var description: String { "service account key \(reason)" }
}
