import Foundation
import JSON

/// The fake App Store Server API of `Tests/Peers/fake_appstore.py` on a free 127.0.0.1 port,
/// with its own test PKI (root, intermediate, leaf: `appstore_peer.py pki`) and App Store
/// Connect-like API key (`appstore_peer.py apikey`); stopped with the test (the fake exits when
/// its standard input closes).
public final class FakeAppStore: @unchecked Sendable {
    public let bundleId: String
    public let keyId = "FAKEKEY123"
    public let issuerId = UUID().uuidString.lowercased()
    /// Holds root.der, root.pem, intermediate.der, leaf.der, leaf-key.pem, key.p8 and key.pub.pem.
    public let files = TemporaryDirectory("fake-appstore")
    private let server: PeerServer
    public var port: Int { server.port }

    public init(bundleId: String = "chat.simplex.badges.test") throws {
        self.bundleId = bundleId
        try PeerPython.run(script: "appstore_peer.py", arguments: ["pki", files.path])
        try PeerPython.run(script: "appstore_peer.py", arguments: ["apikey", files.path])
        chmod(files.file("key.p8"), 0o600)
        server = try PeerServer(script: "fake_appstore.py",
                                arguments: [files.path, files.file("key.pub.pem"), keyId, issuerId, bundleId])
    }

    /// The base URL of the fake production environment (`[apple] api_url`).
    public var productionURL: String { "http://127.0.0.1:\(port)/production" }
    /// The base URL of the fake sandbox (`[apple] sandbox_api_url`).
    public var sandboxURL: String { "http://127.0.0.1:\(port)/sandbox" }
    /// The trusted root, DER.
    public var rootDER: [UInt8] { get throws { [UInt8](try Data(contentsOf: URL(fileURLWithPath: files.file("root.der")))) } }
    /// The API key's `.p8` (PKCS#8 PEM).
    public var privateKeyPEM: [UInt8] { get throws { [UInt8](try Data(contentsOf: URL(fileURLWithPath: files.file("key.p8")))) } }

    /// What the fake answers for `originalTransactionId` in `environment` (`production`, `sandbox`)
    /// from now on. `mode`: ok, nosuch, 401, 403, 404, 429, 500, 503, garbage, huge, hugechunked,
    /// slow. `transaction` and `renewal` replace fields of the signed payloads (null removes one).
    public func script(_ originalTransactionId: String, environment: String = "production", mode: String = "ok",
                       status: Int = 1, transaction: JSONObject = [:], renewal: JSONObject = [:],
                       retryAfterSeconds: Int? = nil, delaySeconds: Double? = nil, responseEnvironment: String? = nil) throws {
        var request: JSONObject = [
            "originalTransactionId": .string(originalTransactionId), "environment": .string(environment), "mode": .string(mode),
            "status": .number(JSONNumber(status)), "transaction": .object(transaction), "renewal": .object(renewal),
        ]
        if let retryAfterSeconds { request["retryAfterSeconds"] = .number(JSONNumber(retryAfterSeconds)) }
        if let delaySeconds { request["delaySeconds"] = .number(JSONNumber(delaySeconds)) }
        if let responseEnvironment { request["responseEnvironment"] = .string(responseEnvironment) }
        try post("/_control/script", request)
    }

    /// What Get Transaction Info answers for `transactionId` in `environment` from now on: with
    /// `ok`, a consumable transaction of this fake's bundle signed by its PKI, `transaction`
    /// replacing its fields (null removes one); the other modes as for ``script(_:environment:mode:status:transaction:renewal:retryAfterSeconds:delaySeconds:responseEnvironment:)``.
    public func scriptTransaction(_ transactionId: String, environment: String = "production", mode: String = "ok",
                                  transaction: JSONObject = [:], retryAfterSeconds: Int? = nil, delaySeconds: Double? = nil) throws {
        var request: JSONObject = [
            "route": "transactions", "originalTransactionId": .string(transactionId), "environment": .string(environment),
            "mode": .string(mode), "transaction": .object(transaction),
        ]
        if let retryAfterSeconds { request["retryAfterSeconds"] = .number(JSONNumber(retryAfterSeconds)) }
        if let delaySeconds { request["delaySeconds"] = .number(JSONNumber(delaySeconds)) }
        try post("/_control/script", request)
    }

    /// Sets the fake's clock (token times, `signedDate`, `Retry-After`) to `unixSeconds` from now
    /// on, for a service running at a fake time under libfaketime.
    public func setClock(unixSeconds: Int64) throws {
        try post("/_control/clock", ["nowMs": .number(JSONNumber(Int(unixSeconds) * 1000))])
    }

    /// Forgets every script and recorded request.
    public func reset() throws { try post("/_control/reset", [:]) }

    /// The requests received, oldest first: `environment`, `originalTransactionId` (the id in the
    /// path), `route` (`subscriptions` or `transactions`), `tokenAccepted`, `tokenRefusal`, `accept`.
    public func requests() throws -> [JSONValue] {
        let (data, _) = try FakePayments.http("GET", "http://127.0.0.1:\(port)/_control/requests", body: nil)
        return try JSONValue.parse([UInt8](data)).arrayValue ?? []
    }

    /// A transaction JWS signed by this fake's PKI, as a device would present it.
    public func sign(_ payload: JSONValue) throws -> String {
        String(decoding: try PeerPython.run(script: "appstore_peer.py", arguments: ["sign", files.path], input: Data(payload.serialized())),
               as: UTF8.self)
    }

    private func post(_ path: String, _ object: JSONObject) throws {
        let (data, status) = try FakePayments.http("POST", "http://127.0.0.1:\(port)" + path, body: Data(JSONValue.object(object).serialized()))
        guard status == 200 else { throw PeerPython.Failure(status: Int32(status), stderr: String(decoding: data, as: UTF8.self)) }
    }
}
