import BadgeCore
import JSON
import Ledger
import Schema
import Testing

@Suite struct WireModelTests {
    /// Every example decodes to its model and re-encodes to the same JSON value.
    @Test(arguments: try Examples.names())
    func roundTrip(_ name: String) throws {
        let (definition, document) = try Examples.load(name)
        let encoded: JSONValue
        switch definition {
        case "request": encoded = try RPCRequest(json: document).json
        case "response": encoded = try RPCResponse(json: document).json
        case "ledgerEntry": encoded = try LedgerEntry(json: document).json
        case "ledgerCredit":
            // Only the deliberately invalid example uses this definition: an unknown type.
            #expect(name == Examples.deliberatelyInvalid)
            #expect(throws: JSONDecodingError(instancePath: ["type"], reason: "unknown type \"grant\"")) {
                try LedgerCredit(json: document)
            }
            return
        default:
            Issue.record("unexpected definition \(definition)")
            return
        }
        // Equal as JSON values (member order is not significant: the examples themselves
        // write badgeInfo and badgeCredential members in more than one order).
        #expect(encoded == document, "\(encoded)")
    }

    @Test func exactWireText() {
        #expect(String(decoding: RPCResponse.failure(.rateLimited, message: "slow down", retryAfter: 30).encodedBytes(), as: UTF8.self)
            == #"{"type":"error","code":"rate_limited","message":"slow down","retryAfter":30}"#)
        #expect(String(decoding: RPCResponse.failure(.codeInvalid).encodedBytes(), as: UTF8.self) == #"{"type":"error","code":"code_invalid"}"#)
        let request = RPCRequest(purchaseKey: nil, command: .getBadgeCatalog)
        #expect(request.json.description == #"{"version":1,"request":{"type":"getBadgeCatalog"}}"#)
        let credit = LedgerEntryType.credit(.payment(invoiceId: nil))
        #expect(credit.json.description == #"{"type":"credit","credit":{"type":"payment"}}"#)
    }

    @Test(arguments: ErrorCode.all)
    func retryAfterRule(_ code: ErrorCode) throws {
        let expected: UInt32? = switch code.rawValue {
        case "payment_pending", "provider_unavailable": 300
        case "rate_limited": 60
        default: nil
        }
        #expect(code.defaultRetryAfter == expected)
        #expect(RPCResponse.failure(code) == .error(code: code, message: nil, retryAfter: expected))
        // An override applies to transient codes only; the others never carry retryAfter.
        #expect(RPCResponse.failure(code, retryAfter: 3600) == .error(code: code, message: nil, retryAfter: expected == nil ? nil : 3600))
        #expect(BadgeRPCSchema.shared.validateResponse(RPCResponse.failure(code, message: "m").json) == [])
    }

    @Test func errorCodes() {
        #expect(ErrorCode.all.count == 20)
        #expect(Set(ErrorCode.all).count == 20)
        #expect(ErrorCode.all.allSatisfy { $0.isKnown })
        #expect(!ErrorCode("name_taken").isKnown)
        #expect(ErrorCode.internal.rawValue == "internal")
        #expect(ErrorCode.transferLimited.defaultRetryAfter == nil)
    }

    @Test func unknownErrorCodeSurvivesDecoding() throws {
        let response = try RPCResponse(json: ["type": "error", "code": "name_taken", "retryAfter": 5])
        #expect(response == .error(code: "name_taken", message: nil, retryAfter: 5))
    }

    /// The encoded form of every kind of response validates against `response`.
    @Test(arguments: SampleResponses.all)
    func responsesValidate(_ response: RPCResponse) throws {
        let json = response.json
        #expect(BadgeRPCSchema.shared.validateResponse(json) == [], "\(json)")
        #expect(try RPCResponse(json: json) == response)
        #expect(try JSONValue.parse(response.encodedBytes()) == json)
    }

    /// Encoded requests validate against `request` and decode back.
    @Test(arguments: SampleRequests.all)
    func requestsValidate(_ request: RPCRequest) throws {
        let json = request.json
        #expect(BadgeRPCSchema.shared.validateRequest(json) == [], "\(json)")
        #expect(try BadgeRPCSchema.shared.decodeRequest(json.serialized()) == request)
    }

    /// What `issuer verify` and clients refuse, with the member at fault.
    @Test func malformedCredentialsNameTheMember() {
        #expect(throws: JSONDecodingError(instancePath: [], reason: "expected an object, found array")) {
            try BadgeCredential(json: [])
        }
        #expect(throws: JSONDecodingError(instancePath: ["badgeKeyIdx"], reason: "expected an integer, found string")) {
            try BadgeCredential(json: ["badgeKeyIdx": "1"])
        }
        let short: JSONValue = ["badgeKeyIdx": 1, "masterKey": "AAAA", "signature": "AAAA",
                                "badgeInfo": ["badgeType": "supporter", "badgeExpiry": "2026-04-14T00:00:00Z", "badgeExtra": ""]]
        #expect(throws: JSONDecodingError(instancePath: ["masterKey"], reason: "masterKey must be 32 bytes, found 3")) {
            try BadgeCredential(json: short)
        }
    }

    @Test func timestampsUseAesonForm() throws {
        let t = Timestamp(seconds: 1_776_124_800, nanoseconds: 120_000_000)
        let info = BadgeInfo(badgeType: .supporter, badgeExpiry: t)
        #expect(info.json["badgeExpiry"] == "2026-04-14T00:00:00.120Z")
        // Any RFC 3339 form is read; the instant is kept.
        let parsed = try BadgeInfo(json: ["badgeType": "legend", "badgeExtra": "", "badgeExpiry": "2026-04-14T02:00:00.12+02:00"])
        #expect(parsed.badgeExpiry == t)
    }
}

enum SampleResponses {
    static let key = "MCowBQYDK2VwAyEAebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ="
    static let t0 = Timestamp(CivilDate(year: 2026, month: 3, day: 10), hour: 11)
    static let t1 = Timestamp(CivilDate(year: 2026, month: 4, day: 10), hour: 11, nanoseconds: 5_000)

    static let entries: [LedgerEntry] = {
        let credits: [LedgerCredit] = [.payment(invoiceId: nil), .payment(invoiceId: "inv"), .code, .charge(chargeId: "c"),
                                       .support, .transferIn(fromPurchaseKey: key), .opening]
        let debits: [LedgerDebit] = [.refund, .upgrade(toPurchaseKey: key), .transferOut(toPurchaseKey: key), .support, .badge, .lapse]
        let types = credits.map(LedgerEntryType.credit) + debits.map(LedgerEntryType.debit)
        return types.enumerated().map { i, type in
            LedgerEntry(entryId: "e\(i)", changeMonths: i % 2 == 0 ? 3 : -32_768, balanceMonths: i == 0 ? 65_535 : i,
                        balanceStartTs: t1, balanceAnchorTs: t0, balanceBadgeType: i % 3 == 0 ? .legend : "future",
                        wasPausedSince: i == 4 ? t0 : nil, createdAt: t0, entryType: type)
        }
    }()

    static let credential = BadgeCredential(keyIndex: 65_535, masterKey: Array(repeating: 7, count: 32),
                                           signature: Array(repeating: 0xA5, count: 80), badgeType: .supporter, expiry: t1)

    static let catalog = Catalog(
        prices: [BadgePrice(priceId: "p1", badgeType: .supporter, monthPrice: 700, currency: "usd", status: .active, createdAt: t0),
                 BadgePrice(priceId: "p0", badgeType: .supporter, monthPrice: 4_294_967_295, currency: "usd", status: .deprecated, createdAt: t0)],
        offers: [BadgeOffer(offerId: "o1", priceId: "p1", months: 3, discount: .freeMonths(1), status: .active, createdAt: t0),
                 BadgeOffer(offerId: "o2", priceId: nil, months: 255, discount: .percent(20), status: .deprecated, createdAt: t1)])

    static let all: [RPCResponse] = [
        .badgeCatalog(catalog: catalog, badgeStatement: nil),
        .badgeCatalog(catalog: Catalog(prices: [], offers: []), badgeStatement: Statement(entries: entries, previousEntryId: "x")),
        .badgeInvoice(invoice: Invoice(invoiceId: "i", price: 2100, discount: 700, amount: 1400, currency: "usd", expiresAt: t1,
                                       paymentTo: .crypto(currency: .xmr, address: "4A", cryptoAmount: "0.1")),
                      badgeType: .supporter, months: 3),
        .badgeInvoice(invoice: Invoice(invoiceId: "i", price: 700, credit: 100, amount: 600, currency: "usd", expiresAt: t1,
                                       paymentTo: .card(provider: .stripe, url: "https://checkout.example/x")),
                      badgeType: "legend", months: 1),
        .badgeCredential(credential: credential, statement: Statement(entries: entries), receipt: "r", subscription: nil),
        .badgeCredential(credential: nil, statement: Statement(entries: []), receipt: nil, subscription: .ended),
    ] + SubscriptionState.allCases.map {
        .badgeCredential(credential: credential, statement: Statement(entries: [entries[3]], previousEntryId: "e2"), receipt: nil, subscription: $0)
    } + ErrorCode.all.map { .failure($0, message: "m\u{0}\"é") }
}

enum SampleRequests {
    static let balance = Balance(lastEntry: SampleResponses.entries[11])
    static let masterKey = Array(repeating: UInt8(9), count: 32)
    static let upgrade = UpgradeProof(fromPurchaseKey: SampleResponses.key, receipt: "r", receiptSignature: Array(repeating: 1, count: 64),
                                      balance: balance)
    static let payments: [Payment] = [.apple(jws: "a.b.c"), .google(productId: "p", token: "t"), .invoice(invoiceId: "i"), .receipt(receipt: "r")]

    static let all: [RPCRequest] = [
        RPCRequest(purchaseKey: nil, command: .getBadgeCatalog),
        RPCRequest(version: 65_535, purchaseKey: SampleResponses.key, command: .getBadgeCatalog),
        RPCRequest(purchaseKey: SampleResponses.key, command: .getBadgeInvoice(
            priceId: "p", offerId: nil, badgeInfo: BadgeInfo(badgeType: .supporter, badgeExpiry: SampleResponses.t1),
            paymentVia: .card(provider: .stripe), upgrade: upgrade)),
        RPCRequest(purchaseKey: SampleResponses.key, command: .getBadgeInvoice(
            priceId: "p", offerId: "o", badgeInfo: BadgeInfo(badgeType: "x", badgeExpiry: SampleResponses.t0),
            paymentVia: .crypto(currency: .btc), upgrade: nil)),
        RPCRequest(purchaseKey: SampleResponses.key, command: .redeemBadgeCode(masterKey: masterKey, code: "SB-0C0QS")),
        RPCRequest(purchaseKey: SampleResponses.key, command: .purchaseBadge(masterKey: masterKey, payment: payments[0], upgrade: upgrade)),
        RPCRequest(purchaseKey: SampleResponses.key, command: .upgradeBadgeSubscription(payment: payments[0], balance: balance)),
        RPCRequest(purchaseKey: SampleResponses.key, command: .issueBadge(balance: balance)),
        RPCRequest(purchaseKey: SampleResponses.key, command: .pauseBadge),
    ] + payments.map {
        RPCRequest(purchaseKey: SampleResponses.key, command: .purchaseBadge(masterKey: masterKey, payment: $0, upgrade: nil))
    } + payments.map {
        RPCRequest(purchaseKey: SampleResponses.key, command: .transferBadge(masterKey: masterKey, payment: $0))
    } + SampleResponses.entries.map {
        RPCRequest(purchaseKey: SampleResponses.key, command: .issueBadge(balance: Balance(lastEntry: $0)))
    }
}
