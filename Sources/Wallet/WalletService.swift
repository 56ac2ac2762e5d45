import BadgeCore
import Crypto
import AppStore
import JSON
import Storage

/// The coin wallet (README, Coin wallet): packs on sale, purchases credited only once the store
/// confirmed them server to server, dev grants when switched on, refunds reversed. Accounts are
/// the request's verified signing keys; the gateway authenticates, this decides and writes.
public final class WalletService: Sendable {
    public let packs: CoinPackTable
    /// `[wallet] allow_dev_coin_grants`: a purchase without a store payload grants its coins.
    public let allowsDevGrants: Bool
    let store: any WalletStore
    let stores: CoinStores
    let clock: @Sendable () -> Timestamp
    /// Why a purchase was refused or failed, for the operator's log; never a token, a receipt or an account.
    let report: @Sendable (String) -> Void

    /// The rows `GET /wallet` shows.
    public static let recentRows = 50

    public init(store: any WalletStore, packs: CoinPackTable, stores: CoinStores, allowsDevGrants: Bool,
                clock: @escaping @Sendable () -> Timestamp, report: @escaping @Sendable (String) -> Void = { _ in }) {
        self.store = store
        self.packs = packs
        self.stores = stores
        self.allowsDevGrants = allowsDevGrants
        self.clock = clock
        self.report = report
    }

    /// `GET /wallet/coin-packages`.
    public func coinPackages() -> WalletAnswer { WalletAnswer(WalletWire.packages(packs), result: "ok") }

    /// `GET /wallet`: the balance and the newest rows of `account`.
    public func wallet(account: String) -> WalletAnswer {
        do {
            let (sum, rows) = try store.readWallet { r in
                (try r.coinSum(account: account), try r.coinRows(account: account, limit: Self.recentRows))
            }
            return WalletAnswer(WalletWire.wallet(sum: sum, rows: rows), result: "ok")
        } catch {
            return failed("reading a wallet", error)
        }
    }

    /// `POST /wallet/coins/purchase` by `account`: the body validated against
    /// `walletPurchaseRequest`, the store asked, then the credit written once.
    public func purchase(body: [UInt8], account: String) -> WalletAnswer {
        guard let request = try? JSONValue.parse(body) else { return .badRequest("the body is not JSON") }
        if let error = WalletSchema.shared.validate(request, definition: "walletPurchaseRequest")?.first {
            return .badRequest("the body does not match walletPurchaseRequest at \(error.instancePointer.isEmpty ? "/" : error.instancePointer)")
        }
        let packId = request["packId"]?.stringValue ?? ""
        guard let pack = packs.pack(id: packId) else { return WalletAnswer(WalletRefusal(.unknownPack, "no coin pack has the packId given")) }
        let now = clock()
        let confirmed: ConfirmedCoinPurchase
        do throws(WalletRefusal) {
            switch request["payment"]?["type"]?.stringValue {
            case nil:
                return devGrant(pack, account: account, now: now)
            case "apple":
                let signed = request["payment"]?["signedTransaction"]?.stringValue ?? ""
                if let replay = appleReplay(signedTransaction: signed, pack: pack, account: account) { return replay }
                confirmed = try stores.confirmApple(signedTransaction: signed, pack: pack, packs: packs, account: account, now: now)
            default:
                let token = request["payment"]?["purchaseToken"]?.stringValue ?? ""
                if let replay = playReplay(purchaseToken: token, pack: pack, account: account) { return replay }
                confirmed = try stores.confirmGoogle(purchaseToken: token, pack: pack, account: account)
            }
        } catch {
            report("wallet: coin purchase not credited: \(error.code.rawValue): \(error.message)")
            return WalletAnswer(error.withoutReason)
        }
        return credit(confirmed, account: account, now: now)
    }

    /// The original row again when the account presents an App Store transaction already credited
    /// to it, before the store is asked (the design: "same account replays → original result
    /// returned"), so an outage or a later revocation does not change the answer. The id is read
    /// from the JWS unverified: it only finds a row the authenticated account already owns. nil
    /// when there is none, or it is another account's or pack's (then the store decides).
    func appleReplay(signedTransaction: String, pack: CoinPack, account: String) -> WalletAnswer? {
        guard let transactionId = try? AppStoreClaim.read(signedTransaction).transactionId,
              let row = try? store.readWallet({ try $0.coinRow(entryKey: Self.purchaseKey(channel: "apple", externalRef: transactionId)) }),
              row.account == account, row.packId == pack.packId
        else { return nil }
        return WalletAnswer(["purchase": WalletWire.row(row)], result: "replayed")
    }

    /// The original row again when the account presents a Play token already credited to it,
    /// found by the token's digest before Play is asked, as ``appleReplay(signedTransaction:pack:account:)``.
    /// nil when there is none (or only a row written before digests were recorded), or it is
    /// another account's or pack's: then Play decides.
    func playReplay(purchaseToken: String, pack: CoinPack, account: String) -> WalletAnswer? {
        guard !purchaseToken.isEmpty,
              let row = try? store.readWallet({ try $0.coinPurchase(tokenSHA256: CoinStores.playTokenDigest(purchaseToken)) }),
              row.account == account, row.packId == pack.packId
        else { return nil }
        return WalletAnswer(["purchase": WalletWire.row(row)], result: "replayed")
    }

    /// The idempotency key of a store's purchase: one credit per purchase, platform-wide.
    public static func purchaseKey(channel: String, externalRef: String) -> String { "coin_purchase:\(channel):\(externalRef)" }
    static func reversalKey(channel: String, externalRef: String) -> String { "coin_reversal:\(channel):\(externalRef)" }

    /// Writes the credit of a confirmed purchase, or finds it written: the same account gets the
    /// original row again, another account receipt_used. The store is asked before, never inside
    /// the transaction, so a crash between its answer and this write leaves nothing to undo.
    func credit(_ confirmed: ConfirmedCoinPurchase, account: String, now: Timestamp) -> WalletAnswer {
        let key = Self.purchaseKey(channel: confirmed.channel, externalRef: confirmed.externalRef)
        // A Sandbox purchase was paid by nobody: its coins count, its money does not.
        let gross = confirmed.environment == .sandbox ? 0 : confirmed.pack.grossUsdCents * confirmed.quantity
        let row = CoinRow(entryKey: key, account: account, kind: .purchase, channel: confirmed.channel,
                          externalRef: confirmed.externalRef, packId: confirmed.pack.packId, coins: confirmed.pack.coins * confirmed.quantity,
                          grossUsdCents: gross, netUsdCents: packs.netUsdCents(gross: gross), createdAt: now,
                          environment: confirmed.environment, tokenSHA256: confirmed.tokenSHA256)
        // Two requests racing with the same purchase: the loser's insert conflicts, and it reads the winner's row.
        for _ in 0..<2 {
            do {
                let outcome: CreditOutcome = try store.writeWallet { w in
                    if let existing = try w.coinRow(entryKey: key) {
                        return existing.account == account ? .written(existing, replayed: true) : .otherAccount
                    }
                    // Refunded before it was presented: the store may still call it bought (Play does).
                    if try w.isRefunded(confirmed.refund) { return .refunded }
                    try w.appendCoinRow(row)
                    return .written(row, replayed: false)
                }
                switch outcome {
                case .otherAccount:
                    report("wallet: coin purchase not credited: receipt_used: the purchase funded another account")
                    return WalletAnswer(WalletRefusal(.receiptUsed, "this purchase was credited to another account"))
                case .refunded:
                    report("wallet: coin purchase not credited: receipt_invalid: refunded before it was presented")
                    return WalletAnswer(WalletRefusal(.receiptInvalid, "this purchase was refunded"))
                case .written(let written, let replayed):
                    return WalletAnswer(["purchase": WalletWire.row(written)], result: replayed ? "replayed" : "credited")
                }
            } catch StorageError.conflict {
                continue
            } catch {
                return failed("crediting a coin purchase", error)
            }
        }
        return failed("crediting a coin purchase", StorageError.conflict(constraint: "coin purchase written twice concurrently"))
    }

    func devGrant(_ pack: CoinPack, account: String, now: Timestamp) -> WalletAnswer {
        guard allowsDevGrants else {
            return WalletAnswer(WalletRefusal(.devGrantsDisabled, "a purchase without a store payload is a dev grant, and dev grants are off"))
        }
        let row = CoinRow(entryKey: "dev_grant:" + Base64URL.encode(SecureRandom.bytes(16), padded: false), account: account, kind: .devGrant,
                          channel: "dev", externalRef: nil, packId: pack.packId, coins: pack.coins, grossUsdCents: 0, netUsdCents: 0,
                          createdAt: now)
        do {
            try store.writeWallet { try $0.appendCoinRow(row) }
            return WalletAnswer(["purchase": WalletWire.row(row)], result: "granted")
        } catch {
            return failed("writing a dev grant", error)
        }
    }

    /// What a refund did to the wallet.
    public enum ReversalOutcome: Sendable, Equatable {
        /// The purchase's coins were taken back by this row (the balance may now show debt).
        case reversed(CoinRow)
        /// The purchase was reversed before: nothing changes (a redelivered notice).
        case alreadyReversed
        /// No coin purchase is known by this reference (another product's refund, or never credited).
        case unknownPurchase
    }

    /// Reverses the coins of the purchase the store knows by `externalRef` on `channel`
    /// (`apple`: the transaction id; `google`: the order id, see ``CoinStores/playReference(orderId:token:)``)
    /// in a transaction of its own; see ``reverse(channel:externalRef:in:at:)``.
    public func reverse(channel: String, externalRef: String) throws -> ReversalOutcome {
        let now = clock()
        for _ in 0..<2 {
            do {
                return try store.writeWallet { try Self.reverse(channel: channel, externalRef: externalRef, in: $0, at: now) }
            } catch StorageError.conflict {
                continue
            }
        }
        return .alreadyReversed
    }

    /// Inside the caller's write transaction (a store notification's, which also records its
    /// delivery): one reversal row taking the purchase's coins back from its account, once,
    /// even when the account has spent them (then the balance shows the debt).
    public static func reverse(channel: String, externalRef: String, in w: any WalletWriter, at now: Timestamp) throws -> ReversalOutcome {
        guard let purchase = try w.coinRow(entryKey: purchaseKey(channel: channel, externalRef: externalRef)) else {
            return .unknownPurchase
        }
        let key = reversalKey(channel: channel, externalRef: externalRef)
        if try w.coinRow(entryKey: key) != nil { return .alreadyReversed }
        let row = CoinRow(entryKey: key, account: purchase.account, kind: .reversal, channel: channel,
                          externalRef: externalRef, packId: purchase.packId, coins: -purchase.coins,
                          grossUsdCents: purchase.grossUsdCents, netUsdCents: purchase.netUsdCents, createdAt: now,
                          environment: purchase.environment)
        try w.appendCoinRow(row)
        return .reversed(row)
    }

    /// What the credit's transaction found.
    private enum CreditOutcome {
        case written(CoinRow, replayed: Bool)
        case otherAccount
        case refunded
    }

    private func failed(_ doing: String, _ error: any Error) -> WalletAnswer {
        switch error {
        case StorageError.busy:
            return WalletAnswer(WalletRefusal(.providerUnavailable, "the database is busy; retry", retryAfter: 1))
        case StorageError.unavailable(let reason):
            // Nothing of the transaction landed (PostgreSQL unreachable): a retry may succeed, as on /rpc.
            report("wallet: \(doing) failed: database unavailable: \(reason)")
            return WalletAnswer(WalletRefusal(.providerUnavailable, "the database is unavailable; retry", retryAfter: 1))
        default:
            break
        }
        report("wallet: \(doing) failed: \(error)")
        return WalletAnswer(WalletRefusal(.internal, "\(doing) failed"))
    }
}
