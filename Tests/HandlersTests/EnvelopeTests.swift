import BadgeCore
import Crypto
import Handlers
import JSON
import Ledger
import Schema
import Testing

@Suite struct EnvelopeTests {
    let h: Harness
    init() throws { h = try Harness() }

    func raw(_ text: String, _ caller: Caller = .anonymous) -> RPCOutcome {
        h.service.handle(body: Array(text.utf8), caller: caller)
    }

    @Test func unsignedCatalogIsAnswered() throws {
        let out = raw(#"{"version":1,"request":{"type":"getBadgeCatalog"}}"#)
        guard case .badgeCatalog(let catalog, let statement) = out.response else { Issue.record("\(out.response)"); return }
        #expect(statement == nil)
        #expect(catalog.prices.count == 2 && catalog.offers.count == 4)
        #expect(out.command == "getBadgeCatalog" && out.result == "ok" && !out.unauthenticated)
        #expect(BadgeRPCSchema.shared.validateResponse(try JSONValue.parse(out.body)).isEmpty)
    }

    @Test(arguments: ["", "{", "[]", "null", #"{"version":1,"request":{"type":"getBadgeCatalog"}} x"#,
                      #"{"version":1,"version":1,"request":{"type":"getBadgeCatalog"}}"#])
    func malformedJSONIsBadRequest(_ body: String) {
        #expect(raw(body).error == .badRequest)
    }

    @Test func schemaViolationNamesTheInstancePath() {
        let out = raw(#"{"version":1,"request":{"type":"getBadgeCatalog","extra":1}}"#)
        #expect(out.error == .badRequest)
        #expect(out.message?.contains("/request/extra") == true)
        let typeless = raw(#"{"version":1,"request":{"type":"frobnicate"}}"#)
        #expect(typeless.error == .badRequest)
        #expect(typeless.message?.contains("/request/type") == true)
    }

    @Test(arguments: [0, 2, 65535])
    func versionOutsideTheRangeIsUnsupported(_ v: Int) {
        #expect(raw(#"{"version":\#(v),"request":{"type":"getBadgeCatalog"}}"#).error == .unsupportedVersion)
        // even with a command this version does not know
        #expect(raw(#"{"version":\#(v),"request":{"type":"futureCommand","x":1}}"#).error == .unsupportedVersion)
    }

    @Test func anonymousRequestsOtherThanTheCatalogNeedASignature() {
        let key = Ed25519PrivateKey()
        let signedOnly = [
            RPCRequest(purchaseKey: key.publicKey.purchaseKeyText, command: .getBadgeCatalog),
            RPCRequest(purchaseKey: key.publicKey.purchaseKeyText, command: .redeemBadgeCode(masterKey: SecureRandom.bytes(32), code: "SB-0C0QS-XAQW1-N1VSA-R00Y3")),
            RPCRequest(purchaseKey: nil, command: .pauseBadge),
        ]
        for r in signedOnly {
            let out = h.send(r, as: .anonymous)
            #expect(out.error == .badRequest)
            #expect(out.unauthenticated)
        }
    }

    @Test func purchaseKeyMustBeTheSigner() {
        let signer = Ed25519PrivateKey(), other = Ed25519PrivateKey()
        let out = h.send(RPCRequest(purchaseKey: other.publicKey.purchaseKeyText, command: .getBadgeCatalog), as: .signer(signer.publicKey))
        #expect(out.error == .badRequest)
        #expect(!out.unauthenticated)
        let missing = h.send(RPCRequest(purchaseKey: nil, command: .getBadgeCatalog), as: .signer(signer.publicKey))
        #expect(missing.error == .badRequest)
    }

    @Test func unknownKeysAreRefusedExceptByRecordCreatingCommands() {
        let key = Ed25519PrivateKey()
        #expect(h.send(.getBadgeCatalog, by: key).error == .unknownPurchaseKey)
        #expect(h.send(.pauseBadge, by: key).error == .unknownPurchaseKey)
        let entry = LedgerEntry.emptyEntry(at: h.clock.now, badgeType: .supporter)
        #expect(h.send(.issueBadge(balance: Balance(lastEntry: entry)), by: key).error == .unknownPurchaseKey)
        #expect(h.send(.upgradeBadgeSubscription(payment: .apple(jws: "a.b.c"), balance: Balance(lastEntry: entry)), by: key).error == .unknownPurchaseKey)
        // record-creating commands get past the key check
        #expect(h.redeem("SB-0C0QS-XAQW1-N1VSA-R00Y3", by: key).error == .codeInvalid)
    }

    /// provider_not_configured means exactly "no verifier for that store is deployed": a service
    /// made without App Store funding (no `[apple]`) answers it for apple, without Google Play
    /// funding (no `[google]`) for google.
    @Test func storesWithoutADeployedVerifierAnswerProviderNotConfigured() {
        #expect(BadgeService.deployedVerifiers == ["stripe", "btcpay", "apple", "google"])
        let key = Ed25519PrivateKey()
        let apple = h.send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .apple(jws: "a.b.c"), upgrade: nil), by: key)
        #expect(apple.error == .providerNotConfigured)
        let google = h.send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .google(productId: "badge_supporter_01", token: "t"), upgrade: nil), by: key)
        #expect(google.error == .providerNotConfigured)
        let transfer = h.send(.transferBadge(masterKey: SecureRandom.bytes(32), payment: .apple(jws: "a.b.c")), by: key)
        #expect(transfer.error == .providerNotConfigured)
    }

    /// Only getBadgeInvoice creates the record an invoice belongs to, so invoice funding is not
    /// among the commands that accept a key with no record (spec, Identity).
    @Test func purchaseBadgeFundedByInvoiceForAnUnknownKeyAnswersUnknownPurchaseKey() throws {
        let stranger = Ed25519PrivateKey()
        let unknown = h.send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .invoice(invoiceId: "i"), upgrade: nil), by: stranger)
        #expect(unknown.error == .unknownPurchaseKey)
        #expect(try h.ledger(of: stranger).isEmpty)
        // a key with a record gets past the key check: an invoice this service never made can never verify
        let holder = Ed25519PrivateKey()
        #expect(h.redeem(try h.code(), by: holder).credential != nil)
        let known = h.send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: .invoice(invoiceId: "i"), upgrade: nil), by: holder)
        #expect(known.error == .receiptInvalid)
    }

    /// Store one-time upgrades are not built: purchaseBadge with upgrade is answered bad_request,
    /// before any store is consulted, and writes nothing.
    /// purchaseBadge.upgrade is the store one-time upgrade: with a store this deployment has no
    /// verifier for, provider_not_configured; with an invoice or a receipt, bad_request.
    @Test func purchaseBadgeWithUpgradeGoesWithAStorePaymentAndOtherwiseWritesNothing() throws {
        let old = Ed25519PrivateKey()
        let redeemed = h.redeem(try h.code(), by: old)
        let lastEntry = try #require(redeemed.statement?.entries.last)
        let key = Ed25519PrivateKey()
        let upgrade = UpgradeProof(fromPurchaseKey: old.publicKey.purchaseKeyText, receipt: "r",
                                      receiptSignature: SecureRandom.bytes(64), balance: Balance(lastEntry: lastEntry))
        for payment in [Payment.apple(jws: "a.b.c"), .google(productId: "badge_legend_01", token: "t")] {
            let out = h.send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: payment, upgrade: upgrade), by: key)
            #expect(out.error == .providerNotConfigured)
        }
        for payment in [Payment.invoice(invoiceId: "i"), .receipt(receipt: "r")] {
            let out = h.send(.purchaseBadge(masterKey: SecureRandom.bytes(32), payment: payment, upgrade: upgrade), by: key)
            #expect(out.error == .badRequest)
            #expect(out.message?.contains("upgrade") == true)
        }
        #expect(try h.ledger(of: key).isEmpty)
        #expect(try h.ledger(of: old).count == 2)
    }

    @Test func getBadgeInvoiceWithAnUpgradeIsBuilt() throws {
        let key = Ed25519PrivateKey()
        #expect(h.redeem(try h.code(), by: key).credential != nil)
        // The non-store upgrade is built (docs/protocol.md, Upgrades): priced as any invoice first,
        // so a service without payment providers answers provider_not_configured.
        let upgrade = UpgradeProof(fromPurchaseKey: key.publicKey.purchaseKeyText, receipt: "r",
                                   receiptSignature: SecureRandom.bytes(64),
                                   balance: Balance(lastEntry: try #require(try h.ledger(of: key).last)))
        let upgraded = h.send(.getBadgeInvoice(priceId: DefaultCatalog.legendPriceId, offerId: nil,
                                               badgeInfo: BadgeInfo(badgeType: .legend, badgeExpiry: h.clock.now, badgeExtra: ""),
                                               paymentVia: .card(provider: .stripe), upgrade: upgrade), by: Ed25519PrivateKey())
        #expect(upgraded.error == .providerNotConfigured)
        // getBadgeInvoice is built; a service without payment providers answers provider_not_configured
        let invoice = h.send(.getBadgeInvoice(priceId: DefaultCatalog.supporterPriceId, offerId: nil,
                                              badgeInfo: BadgeInfo(badgeType: .supporter, badgeExpiry: h.clock.now, badgeExtra: ""),
                                              paymentVia: .card(provider: .stripe), upgrade: nil), by: Ed25519PrivateKey())
        #expect(invoice.error == .providerNotConfigured)
    }

    @Test func everyResponseValidatesAgainstTheSchema() throws {
        let key = Ed25519PrivateKey()
        let code = try h.code()
        let outs = [raw("{"), raw(#"{"version":2}"#), h.send(.getBadgeCatalog, by: key), h.redeem(code, by: key),
                    h.send(.getBadgeCatalog, by: key), h.redeem(code, by: Ed25519PrivateKey())]
        for out in outs {
            #expect(BadgeRPCSchema.shared.validateResponse(try JSONValue.parse(out.body)).isEmpty)
        }
    }
}
