import JSON

/// A Google service-account key file made by the google-auth peer (Python `cryptography`,
/// `Tests/Peers/google_auth_peer.py keygen`), with its public key: one per test process.
public struct PeerServiceAccount: Sendable {
    /// The key file's JSON text, as the Cloud console would download it.
    public let keyJSON: String
    public let publicPEM: String

    public static let shared: PeerServiceAccount = {
        let out = try! PeerPython.run(script: "google_auth_peer.py", arguments: ["keygen"])
        let value = try! JSONValue.parse([UInt8](out))
        return PeerServiceAccount(keyJSON: value["key"]!.stringValue!, publicPEM: value["public_pem"]!.stringValue!)
    }()
}
