import Foundation
import JSON
import Schema
import Testing
import TestSupport
@testable import Wallet

/// The pack table: six packs from 99 cents to $99.99, slightly under 100 coins a dollar, net
/// after the configured fee; a packs file read strictly; the wire form valid against the contract.
@Suite struct CoinPackTableTests {
    @Test func theDefaultTableHasSixPacksFromTheStarterToTheWhaleUnderAHundredCoinsADollar() throws {
        let table = try CoinPackTable()
        #expect(table.packs.count == 6)
        #expect(table.packs.first?.grossUsdCents == 99 && table.packs.last?.grossUsdCents == 9_999)
        #expect(table.packs.map(\.grossUsdCents) == table.packs.map(\.grossUsdCents).sorted())
        for pack in table.packs {
            #expect(pack.coins * 100 < pack.grossUsdCents * 100, "\(pack.packId): \(pack.coins) coins for \(pack.grossUsdCents) cents")
            #expect(pack.coins * 100 >= pack.grossUsdCents * 90, "\(pack.packId) is more than slightly under")
        }
        #expect(table.storeFeePercent == 30)
        #expect(table.netUsdCents(gross: 99) == 69 && table.netUsdCents(gross: 9_999) == 6_999)
        #expect(try CoinPackTable(storeFeePercent: 15).netUsdCents(gross: 999) == 849)
    }

    @Test func theWireFormIsValidAgainstTheContract() throws {
        let table = try CoinPackTable()
        let packages = WalletWire.packages(table)
        #expect(WalletSchema.shared.validate(packages, definition: "coinPackages") == [])
        #expect(packages["packs"]?.arrayValue?.first?["netUsdCents"]?.numberValue?.exactInt == 69)
        #expect(WalletSchema.shared.validate(WalletWire.wallet(sum: -40, rows: []), definition: "wallet") == [])
        #expect(WalletWire.wallet(sum: -40, rows: [])["debt"]?.numberValue?.exactInt == 40)
        #expect(WalletWire.wallet(sum: -40, rows: [])["balance"]?.numberValue?.exactInt == 0)
    }

    @Test func aPacksFileReplacesTheTableAndAMistakeIsNamed() throws {
        let file = #"[{"packId":"one","coins":95,"grossUsdCents":100,"appStoreProductId":"A1","playProductId":"a1"}]"#
        let table = try CoinPackTable.parse(Array(file.utf8), storeFeePercent: 20)
        #expect(table.packs.map(\.packId) == ["one"] && table.netUsdCents(gross: 100) == 80)
        let mistakes: [(String, String)] = [
            ("{}", "not a JSON array"),
            ("[]", "no packs"),
            (#"[{"packId":"one","coins":95,"grossUsdCents":100,"appStoreProductId":"A1","playProductId":"a1","x":1}]"#, "unknown member x"),
            (#"[{"packId":"one","coins":"95","grossUsdCents":100,"appStoreProductId":"A1","playProductId":"a1"}]"#, "coins must be an integer"),
            (#"[{"packId":"one","coins":0,"grossUsdCents":100,"appStoreProductId":"A1","playProductId":"a1"}]"#, "1...1000000"),
            ("[" + [1, 2].map { #"{"packId":"p\#($0)","coins":95,"grossUsdCents":100,"appStoreProductId":"A","playProductId":"a\#($0)"}"# }
                .joined(separator: ",") + "]", "App Store product id A is repeated"),
            // Play's ids are lower case: this one would make every Play purchase of the pack receipt_invalid.
            (#"[{"packId":"one","coins":95,"grossUsdCents":100,"appStoreProductId":"A1","playProductId":"COINS_1"}]"#,
             "pack one: playProductId COINS_1: product id does not start with a-z or 0-9"),
        ]
        for (text, reason) in mistakes {
            #expect(throws: CoinPackTableError.self, "\(text)") { try CoinPackTable.parse(Array(text.utf8), storeFeePercent: 30) }
            do { _ = try CoinPackTable.parse(Array(text.utf8), storeFeePercent: 30) } catch {
                #expect(error.description.contains(reason), "\(error)")
            }
        }
        #expect(throws: CoinPackTableError.self) { try CoinPackTable(storeFeePercent: 100) }
    }

    @Test func theEmbeddedSchemaTextIsTheFile() throws {
        let file = try String(contentsOf: Repository.root.appendingPathComponent("schema/wallet.schema.json"), encoding: .utf8)
        #expect(WalletSchema.text == file, "run python3 Tests/Peers/embed_schema.py")
    }
}
