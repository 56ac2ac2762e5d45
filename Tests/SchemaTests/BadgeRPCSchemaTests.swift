import BadgeCore
import Foundation
import JSON
import Schema
import Testing

@Suite struct BadgeRPCSchemaTests {
    /// The binary carries the schema; the JSON file is its readable source. Regenerate with
    /// `python3 Tests/Peers/embed_schema.py` after editing the file.
    @Test func embeddedTextMatchesFile() throws {
        #expect(Array(BadgeRPCSchema.text.utf8) == (try ProjectSchema.bytes()))
    }

    @Test func sharedSchemaCompiles() {
        let names = BadgeRPCSchema.shared.definitionNames
        for name in ["request", "response", "command", "ledgerEntry", "ledgerCredit", "ledgerDebit", "statement", "balance"] {
            #expect(names.contains(name))
        }
        #expect(!BadgeRPCSchema.shared.schema.hasRecursiveDefinitions)
        #expect(BadgeRPCSchema.shared.validate(1, definition: "nonexistent") == nil)
    }

    @Test func exampleCount() throws {
        #expect(try Examples.names().count == 27)
    }

    /// Every example validates under its stated definition, except the deliberately invalid one.
    @Test(arguments: try Examples.names())
    func example(_ name: String) throws {
        let (definition, document) = try Examples.load(name)
        let errors = try #require(BadgeRPCSchema.shared.validate(document, definition: definition))
        if name == Examples.deliberatelyInvalid {
            // {"type": "grant", …}: an unknown tag value is reported at the tag.
            #expect(errors == [ValidationError(instancePath: ["type"], schemaPath: ["definitions", "ledgerCredit", "mapping"])])
        } else {
            #expect(errors == [], "\(name): \(errors)")
        }
    }

    /// Requests the gateway must refuse, with the instance paths of every error.
    @Test(arguments: [
        // envelope
        (#"[]"#, [""]),
        (#"{"request":{"type":"getBadgeCatalog"}}"#, [""]),
        (#"{"version":1}"#, [""]),
        (#"{"version":-1,"request":{"type":"getBadgeCatalog"}}"#, ["/version"]),
        (#"{"version":65536,"request":{"type":"getBadgeCatalog"}}"#, ["/version"]),
        (#"{"version":1.5,"request":{"type":"getBadgeCatalog"}}"#, ["/version"]),
        (#"{"version":"1","request":{"type":"getBadgeCatalog"}}"#, ["/version"]),
        (#"{"version":1,"purchaseKey":null,"request":{"type":"getBadgeCatalog"}}"#, ["/purchaseKey"]),
        (#"{"version":1,"request":{"type":"getBadgeCatalog"},"extra":true}"#, ["/extra"]),
        // command tag
        (#"{"version":1,"request":{}}"#, ["/request"]),
        (#"{"version":1,"request":{"type":7}}"#, ["/request/type"]),
        (#"{"version":1,"request":{"type":"getBadgeCatalogue"}}"#, ["/request/type"]),
        (#"{"version":1,"request":"getBadgeCatalog"}"#, ["/request"]),
        (#"{"version":1,"request":{"type":"getBadgeCatalog","purchaseKey":"x"}}"#, ["/request/purchaseKey"]),
        (#"{"version":1,"request":{"type":"pauseBadge","badgeRequest":{}}}"#, ["/request/badgeRequest"]),
        // command fields
        (#"{"version":1,"request":{"type":"redeemBadgeCode","code":"SB0"}}"#, ["/request"]),
        (#"{"version":1,"request":{"type":"redeemBadgeCode","masterKey":1,"code":null}}"#, ["/request/masterKey", "/request/code"]),
        (#"{"version":1,"request":{"type":"purchaseBadge","masterKey":"AA==","payment":{"type":"paypal"}}}"#, ["/request/payment/type"]),
        (#"{"version":1,"request":{"type":"purchaseBadge","masterKey":"AA==","payment":{"type":"google","token":"t"}}}"#, ["/request/payment"]),
        (#"{"version":1,"request":{"type":"purchaseBadge","masterKey":"AA==","payment":{"type":"apple","jws":"j","productId":"p"}}}"#, ["/request/payment/productId"]),
        (#"{"version":1,"request":{"type":"issueBadge","balance":{"lastEntry":{}}}}"#, Array(repeating: "/request/balance/lastEntry", count: 8)),
        (#"{"version":1,"request":{"type":"issueBadge","balance":{"lastEntry":{"entryId":"e","changeMonths":-32769,"balanceMonths":-1,"balanceStartTs":"2026-04-10 11:00:00Z","balanceAnchorTs":"2026-03-10T11:00:00Z","balanceBadgeType":"supporter","createdAt":"2026-03-10T11:00:00Z","wasPausedSince":null,"entryType":{"type":"debit","debit":{"type":"grant"}}}}}}"#,
         ["/request/balance/lastEntry/changeMonths", "/request/balance/lastEntry/balanceMonths",
          "/request/balance/lastEntry/balanceStartTs", "/request/balance/lastEntry/entryType/debit/type",
          "/request/balance/lastEntry/wasPausedSince"]),
        (#"{"version":1,"request":{"type":"getBadgeInvoice","priceId":"p","badgeInfo":{"badgeType":"supporter","badgeExtra":"","badgeExpiry":"2026-04-14T00:00:00Z"},"paymentVia":{"type":"crypto","currency":"eth"}}}"#, ["/request/paymentVia/currency"]),
        (#"{"version":1,"request":{"type":"transferBadge","masterKey":"AA==","payment":{"type":"google","productId":"p","token":"t"},"upgrade":{}}}"#, ["/request/upgrade"]),
    ] as [(String, [String])])
    func invalidRequest(_ text: String, _ pointers: [String]) throws {
        let errors = BadgeRPCSchema.shared.validateRequest(try JSONValue.parse(text))
        #expect(Multiset(errors.map(\.instancePointer)) == Multiset(pointers), "\(errors)")
    }
}
