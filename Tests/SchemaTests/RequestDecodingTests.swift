import BadgeCore
import JSON
import Schema
import Testing

/// The gateway's input pipeline: bytes → JSON → schema → typed request, and its refusals.
@Suite struct RequestDecodingTests {
    @Test func errorMessagesNamePositions() throws {
        func message(_ text: String) -> String? {
            do {
                _ = try BadgeRPCSchema.shared.decodeRequest(Array(text.utf8))
                return nil
            } catch {
                return error.message
            }
        }
        #expect(message(#"{"version":1,"request":{"type":"redeemBadgeCode","code":"x"}}"#)
            == #"invalid request at /request: missing member "masterKey""#)
        #expect(message(#"{"version":1,"request":{"type":"nope"}}"#) == #"invalid request at /request/type: unknown type "nope""#)
        #expect(message(#"{"version":1,"request":{"type":"pauseBadge"},"x":0}"#) == #"invalid request at /x: unexpected member "x""#)
        #expect(message(#"{"version":"1","request":{"type":"pauseBadge"}}"#)
            == "invalid request at /version: expected an integer of type uint16")
        #expect(message(#"{"version":1,"#) == "invalid JSON at byte 13: unexpected end of input")
        #expect(message(#"{"version":1,"request":{"type":"redeemBadgeCode","masterKey":"AA==","code":"x"}}"#)
            == "invalid request at /request/masterKey: masterKey must be 32 bytes, found 1")
    }
}

extension RequestDecodingTests {
    static let key = "MCowBQYDK2VwAyEAebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ="
    static let masterKey = "QEFCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFlaW1xdXl8="

    static func redeem(masterKey: String, purchaseKey: String = key) -> String {
        #"{"version":1,"purchaseKey":"\#(purchaseKey)","request":{"type":"redeemBadgeCode","masterKey":"\#(masterKey)","code":"SB0C0QSXAQW1N1VSAR00Y3"}}"#
    }

    static let entry = #"{"entryId":"e","changeMonths":-1,"balanceMonths":2,"balanceStartTs":"2026-04-10T11:00:00Z","balanceAnchorTs":"2026-03-10T11:00:00Z","balanceBadgeType":"supporter","createdAt":"2026-03-10T11:00:00Z","entryType":ENTRYTYPE}"#

    /// Schema-valid requests whose values are unusable: refused with the path of the value.
    @Test(arguments: [
        (redeem(masterKey: "QEFCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFlaW1xdXl8"), nil), // unpadded is accepted
        (redeem(masterKey: "QEFCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFlaW1xdXl+="), "/request/masterKey"), // '+' is not base64url
        (redeem(masterKey: "QEFCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFlaW1xdXl8=="), "/request/masterKey"),
        (redeem(masterKey: "QEFCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFlaW1xdXg=="), "/request/masterKey"), // 31 bytes
        (redeem(masterKey: "QEFCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFlaW1xdXl9g"), "/request/masterKey"), // 33 bytes
        (redeem(masterKey: ""), "/request/masterKey"),
        (redeem(masterKey: masterKey, purchaseKey: "MCowBQYDK2VwAyEAebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ"), nil),
        (redeem(masterKey: masterKey, purchaseKey: "MCowBQYDK2VwAyEAebVWLo/mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ="), "/purchaseKey"),
        (redeem(masterKey: masterKey, purchaseKey: masterKey), "/purchaseKey"), // 32 bytes, not an SPKI
        (redeem(masterKey: masterKey, purchaseKey: "MCowBQYDK2VxAyEAebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ="), "/purchaseKey"), // Ed448 OID
        (#"{"version":1,"purchaseKey":"\#(key)","request":{"type":"transferBadge","masterKey":"@@@@","payment":{"type":"google","productId":"p","token":"t"}}}"#, "/request/masterKey"),
        (#"{"version":1,"purchaseKey":"\#(key)","request":{"type":"issueBadge","balance":{"lastEntry":\#(entry.replacingOccurrences(of: "ENTRYTYPE", with: #"{"type":"debit","debit":{"type":"transferOut","toPurchaseKey":"AAAA"}}"#))}}}"#,
         "/request/balance/lastEntry/entryType/debit/toPurchaseKey"),
        (#"{"version":1,"purchaseKey":"\#(key)","request":{"type":"issueBadge","balance":{"lastEntry":\#(entry.replacingOccurrences(of: "ENTRYTYPE", with: #"{"type":"credit","credit":{"type":"transferIn","fromPurchaseKey":"not base64"}}"#))}}}"#,
         "/request/balance/lastEntry/entryType/credit/fromPurchaseKey"),
        (#"{"version":1,"purchaseKey":"\#(key)","request":{"type":"purchaseBadge","masterKey":"\#(masterKey)","payment":{"type":"apple","jws":"x"},"upgrade":{"fromPurchaseKey":"\#(key)","receipt":"r","receiptSignature":"AAAA","balance":{"lastEntry":\#(entry.replacingOccurrences(of: "ENTRYTYPE", with: #"{"type":"debit","debit":{"type":"badge"}}"#))}}}}"#,
         "/request/upgrade/receiptSignature"),
    ] as [(String, String?)])
    func valueChecks(_ text: String, _ pointer: String?) {
        do {
            _ = try BadgeRPCSchema.shared.decodeRequest(Array(text.utf8))
            #expect(pointer == nil, "accepted, expected refusal at \(pointer ?? "")")
        } catch {
            guard case .value(let e) = error.kind else {
                Issue.record("expected a value error, got \(error)")
                return
            }
            #expect(e.instancePointer == pointer, "\(e)")
        }
    }

    @Test func decodesTypedCommand() throws {
        let request = try BadgeRPCSchema.shared.decodeRequest(Array(Self.redeem(masterKey: Self.masterKey).utf8))
        #expect(request.version == 1)
        #expect(request.purchaseKey == Self.key)
        #expect(request.command == .redeemBadgeCode(masterKey: Array(0x40...0x5F), code: "SB0C0QSXAQW1N1VSAR00Y3"))
        #expect(request.command.name == "redeemBadgeCode")
        #expect(request.command.requiresPurchaseKey)
        #expect(!RPCCommand.getBadgeCatalog.requiresPurchaseKey)
        #expect(Set(SampleRequests.all.map(\.command.name)) == Set(RPCCommand.names))
    }

    @Test func refusalKinds() {
        #expect(throws: RequestRejection(.malformedJSON(JSONParseError(offset: 10, reason: .duplicateKey("a"))))) {
            try BadgeRPCSchema.shared.decodeRequest(Array(#"{"a":1 ,  "a":2}"#.utf8))
        }
        do {
            _ = try BadgeRPCSchema.shared.decodeRequest(Array(#"{"version":1}"#.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.instancePointer == "")
            #expect(error.message == #"invalid request at /: missing member "request""#)
        }
    }

    /// Decoding without validation never traps: every mutation of every example request
    /// either decodes or throws.
    @Test func decodingArbitraryJSONNeverTraps() throws {
        var count = 0
        for name in try Examples.names() {
            let (definition, document) = try Examples.load(name)
            guard definition == "request" || definition == "response" else { continue }
            for mutant in Mutations.all(of: document) {
                _ = try? RPCRequest(json: mutant)
                _ = try? RPCResponse(json: mutant)
                count += 1
            }
        }
        #expect(count > 1000)
    }
}
