import BadgeCore
import Crypto
import Foundation
import GooglePlay
import Handlers
import JSON
import Ledger
import Schema
import Storage
import TestSupport
import Testing

/// purchaseBadge.upgrade (docs/protocol.md, Upgrades, Store one-time): a Play upgrade SKU at its
/// fixed price, eligibility proved by an unexpired cheaper badge, against the fake Google.
@Suite(.serialized) struct StoreUpgradeTests {
    static let sku = "badge_legend_upgrade_01"

    /// A supporter month bought on Play under `key` with `token`: its recovery receipt.
    static func supporter(_ h: Harness, _ fake: FakeGoogle, token: String, key: Ed25519PrivateKey) throws -> String {
        GooglePlayPurchaseTests.scriptPurchased(fake, token: token)
        let out = GooglePlayPurchaseTests.buy(h, token: token, by: key)
        guard case .badgeCredential(_?, _, let receipt?, nil) = out.response else { throw Missing("\(out.response)") }
        return receipt
    }

    static func proof(from old: Ed25519PrivateKey, to new: Ed25519PrivateKey, receipt: String, h: Harness) throws -> UpgradeProof {
        let from = old.publicKey.purchaseKeyText
        let message = UpgradeProof.signedMessage(fromPurchaseKey: from, toPurchaseKey: new.publicKey.purchaseKeyText, receipt: receipt)
        return UpgradeProof(fromPurchaseKey: from, receipt: receipt, receiptSignature: old.signature(for: message),
                            balance: Balance(lastEntry: try #require(try h.ledger(of: old).last)))
    }

    static func upgrade(_ h: Harness, _ fake: FakeGoogle, token: String, by key: Ed25519PrivateKey, proof: UpgradeProof?,
                        product: String = sku) -> RPCOutcome {
        GooglePlayPurchaseTests.scriptPurchased(fake, token: token, product: product)
        return h.send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .google(productId: product, token: token),
                                     upgrade: proof), by: key)
    }

    struct Missing: Error { let what: String; init(_ what: String) { self.what = what } }

    /// An open card invoice of another key upgrading to legend with a credit, as getBadgeInvoice
    /// records one (`name` makes its ids).
    static func upgradeInvoice(_ name: String, h: Harness) -> InvoiceRecord {
        InvoiceRecord(invoiceId: "\(name)-invoice", purchaseKey: Ed25519PrivateKey().publicKey.purchaseKeyText,
                      badgeType: .legend, months: 1, price: 7000, discount: 0, credit: 3850, amount: 3150,
                      currency: "usd", priceId: DefaultCatalog.legendPriceId, offerId: nil, provider: "stripe",
                      method: "card", providerRef: "cs_\(name)", paymentURL: "https://pay.example/cs_\(name)",
                      address: nil, cryptoAmount: nil, status: .open, createdAt: h.clock.now,
                      expiresAt: h.clock.now.adding(seconds: 3600))
    }

    /// Records `invoice` and the month of purchase `oldId` it converts.
    static func open(_ invoice: InvoiceRecord, converting oldId: Int64, in store: any BadgeStore) throws {
        try store.write { w in
            try w.insertInvoice(invoice)
            try w.insertInvoiceUpgrade(InvoiceUpgrade(invoiceId: invoice.invoiceId, fromPurchaseId: oldId, months: 1))
        }
    }

    /// `body` against the fake Google, the legend upgrade SKU priced, and two fresh keys (old, new).
    static func withUpgradeSKU(_ body: (Harness, FakeGoogle, Ed25519PrivateKey, Ed25519PrivateKey) throws -> Void) throws {
        let fake = FakeGoogle()
        try fake.serve { base in
            let h = try GooglePlayPurchaseTests.harness(fake, base)
            try StoreProductAdmin(store: h.store).set(StoreProduct(store: "google", productId: sku, badgeType: .legend,
                                                                   months: 1, kind: .upgrade))
            try body(h, fake, Ed25519PrivateKey(), Ed25519PrivateKey())
        }
    }

    @Test func anUpgradeSKUReplacesAnUnexpiredCheaperBadgeOnce() throws {
        try Self.withUpgradeSKU { h, fake, old, new in
            let receipt = try Self.supporter(h, fake, token: "upgradeoldtoken.AO-1", key: old)
            let proof = try Self.proof(from: old, to: new, receipt: receipt, h: h)

            let out = Self.upgrade(h, fake, token: "upgradenewtoken.AO-2", by: new, proof: proof)
            #expect(out.credential?.badgeType == .legend, "\(out.response)")
            #expect(out.statement?.entries.map(\.entryType) == [.credit(.payment(invoiceId: nil)), .debit(.badge)])
            // The old purchase is replaced: its upgrade debit (of none: its month was issued) names the new key.
            let oldRows = try h.ledger(of: old)
            #expect(oldRows.last?.entryType == .debit(.upgrade(toPurchaseKey: new.publicKey.purchaseKeyText)))
            #expect(oldRows.last?.changeMonths == 0)
            #expect(checkLedger(oldRows, purchaseBadgeType: .supporter) == nil)
            #expect(checkLedger(try h.ledger(of: new), purchaseBadgeType: .legend) == nil)
            // The same request again: the same answer from the record.
            let again = h.send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .google(productId: Self.sku, token: "upgradenewtoken.AO-2"),
                                              upgrade: proof), by: new)
            #expect(again.credential?.badgeType == .legend && again.statement?.entries.count == 2)

            // The same old badge proves nothing more: receipt_used, before Play is asked.
            let third = Ed25519PrivateKey()
            let calls = fake.apiCalls.count
            let reused = Self.upgrade(h, fake, token: "upgradethirdtoken.AO-3", by: third,
                                      proof: try Self.proof(from: old, to: third, receipt: receipt, h: h))
            #expect(reused.error == .receiptUsed)
            #expect(fake.apiCalls.count == calls)
        }
    }

    /// An upgrade invoice another key opened from the same old purchase priced its credit on that
    /// purchase's months: while it may still settle, the SKU is refused before Play is asked (its
    /// settlement would debit nothing and still give the credit); once it cannot, the SKU goes through.
    @Test func anOpenUpgradeInvoiceOfTheOldPurchaseHoldsItsMonths() throws {
        try Self.withUpgradeSKU { h, fake, old, new in
            let receipt = try Self.supporter(h, fake, token: "heldoldtoken.AO-1", key: old)
            let oldId = try #require(try h.store.read { try $0.purchase(key: old.publicKey.purchaseKeyText) }).id
            let invoice = Self.upgradeInvoice("held", h: h)
            try Self.open(invoice, converting: oldId, in: h.store)
            let calls = fake.apiCalls.count
            let held = Self.upgrade(h, fake, token: "heldnewtoken.AO-2", by: new, proof: try Self.proof(from: old, to: new, receipt: receipt, h: h))
            #expect(held.error == .badRequest, "\(held.response)")
            #expect(fake.apiCalls.count == calls)
            #expect(try h.ledger(of: old).allSatisfy { if case .debit(.upgrade) = $0.entryType { false } else { true } })
            // Closed unpaid (the session expired): the months are free again.
            _ = try h.store.write { try $0.setInvoiceStatus(invoiceId: invoice.invoiceId, from: [.open], to: .closed, paidAt: nil, paymentRef: nil) }
            let out = Self.upgrade(h, fake, token: "heldnewtoken.AO-2", by: new, proof: try Self.proof(from: old, to: new, receipt: receipt, h: h))
            #expect(out.credential?.badgeType == .legend, "\(out.response)")
        }
    }

    /// The same, when the invoice opens between the SKU's judgement and its write (another
    /// thread's or instance's getBadgeInvoice): the write sees it and the SKU is refused.
    @Test func anUpgradeInvoiceOpenedWhileTheSKUIsCreditedHoldsTheMonths() throws {
        try Self.withUpgradeSKU { h, fake, old, new in
            let receipt = try Self.supporter(h, fake, token: "raceoldtoken.AO-1", key: old)
            let oldId = try #require(try h.store.read { try $0.purchase(key: old.publicKey.purchaseKeyText) }).id
            let invoice = Self.upgradeInvoice("raced", h: h)
            let store = h.store
            let racing = BeforeFirstWrite(inner: store) { try? Self.open(invoice, converting: oldId, in: store) }
            let token = "racenewtoken.AO-2"
            GooglePlayPurchaseTests.scriptPurchased(fake, token: token, product: Self.sku)
            let raced = h.send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .google(productId: Self.sku, token: token),
                                              upgrade: try Self.proof(from: old, to: new, receipt: receipt, h: h)), by: new, over: racing)
            #expect(raced.error == .badRequest, "\(raced.response)")
            #expect(try h.ledger(of: old).allSatisfy { if case .debit(.upgrade) = $0.entryType { false } else { true } })
            #expect(try h.ledger(of: new).isEmpty)
        }
    }

    @Test func aProofThatFailsIsReceiptInvalidBeforePlayIsAsked() throws {
        try Self.withUpgradeSKU { h, fake, old, new in
            let receipt = try Self.supporter(h, fake, token: "failoldtoken.AO-1", key: old)
            let calls = fake.apiCalls.count
            // Signed for another key; the upgrade SKU without the proof; the proof with a plain product.
            let elsewhere = try Self.proof(from: old, to: Ed25519PrivateKey(), receipt: receipt, h: h)
            #expect(Self.upgrade(h, fake, token: "failnewtoken.AO-2", by: new, proof: elsewhere).error == .receiptInvalid)
            #expect(Self.upgrade(h, fake, token: "failnewtoken.AO-2", by: new, proof: nil).error == .badRequest)
            let good = try Self.proof(from: old, to: new, receipt: receipt, h: h)
            #expect(Self.upgrade(h, fake, token: "failnewtoken.AO-2", by: new, proof: good, product: "badge_legend_01").error == .badRequest)
            // A badge of the same type is not cheaper.
            let legendKey = Ed25519PrivateKey()
            try StoreProductAdmin(store: h.store).set(StoreProduct(store: "google", productId: "badge_supporter_upgrade_01",
                                                                   badgeType: .supporter, months: 1, kind: .upgrade))
            #expect(Self.upgrade(h, fake, token: "failsametoken.AO-4", by: legendKey,
                                 proof: try Self.proof(from: old, to: legendKey, receipt: receipt, h: h),
                                 product: "badge_supporter_upgrade_01").error == .receiptInvalid)
            #expect(fake.apiCalls.count == calls)
            // Once the old credential has expired, it proves nothing.
            h.clock.now = h.clock.now.adding(seconds: 45 * 86_400)
            #expect(Self.upgrade(h, fake, token: "failnewtoken.AO-2", by: new, proof: good).error == .receiptInvalid)
            #expect(fake.apiCalls.count == calls)
            #expect(try h.ledger(of: new).isEmpty)
        }
    }
}
