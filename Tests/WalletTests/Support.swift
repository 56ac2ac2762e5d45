import BadgeCore
import Foundation
import GooglePlay
import JSON
import Locking
import Storage
import TestSupport
import Wallet

/// A wallet over a fresh SQLite database in its own directory, with what it logged.
final class WalletHarness: Sendable {
    let directory = TemporaryDirectory("wallet")
    let store: SQLiteBadgeStore
    let wallet: WalletService
    let logged = LockedValueBox<[String]>([])

    init(stores: CoinStores = CoinStores(), allowsDevGrants: Bool = false, packs: CoinPackTable? = nil) throws {
        store = try SQLiteBadgeStore(path: directory.file("badges.sqlite"))
        let logged = self.logged
        wallet = WalletService(store: store, packs: try packs ?? CoinPackTable(), stores: stores, allowsDevGrants: allowsDevGrants,
                               clock: { Timestamp(seconds: Int64(Date().timeIntervalSince1970)) },
                               report: { line in logged.withLock { $0.append(line) } })
    }

    var log: String { logged.withLock { $0.joined(separator: "\n") } }

    func purchase(_ body: JSONValue, account: String) -> (answer: WalletAnswer, json: JSONValue?) {
        let answer = wallet.purchase(body: body.serialized(), account: account)
        return (answer, try? JSONValue.parse(answer.body))
    }

    func balance(_ account: String) -> (balance: Int?, debt: Int?, rows: Int?) {
        let json = try? JSONValue.parse(wallet.wallet(account: account).body)
        return (json?["balance"]?.numberValue?.exactInt, json?["debt"]?.numberValue?.exactInt, json?["rows"]?.arrayValue?.count)
    }

    /// The Play client of `FakeGoogle` serving at `base`.
    static func playClient(_ fake: FakeGoogle, _ base: String) throws -> GooglePlayClient {
        GooglePlayClient(endpoint: GooglePlayEndpoint(packageName: fake.package, apiURL: base, tokenURL: base + "/token", timeoutSeconds: 2),
                         key: try ServiceAccountKey(json: Array(PeerServiceAccount.shared.keyJSON.utf8)))
    }
}

/// Two accounts, as the gateway names them: canonical purchase key texts (the last character
/// before the padding carries no stray bits, so each decodes to its key).
enum Accounts {
    static let alice = "MCowBQYDK2VwAyEA" + String(repeating: "A", count: 43) + "="
    static let bob = "MCowBQYDK2VwAyEA" + String(repeating: "B", count: 42) + "E="
}

extension JSONValue {
    var errorCode: String? { self["error"]?["code"]?.stringValue }
}
