import BadgeCore
@testable import CLI
import Testing

/// The names of pre-migrate backups and which of them go: only names the service makes, past
/// the newest three, by the time (and the sequence within a second) they carry.
@Suite struct PreMigrateBackupTests {
    let t = Timestamp(CivilDate(year: 2026, month: 12, day: 4), hour: 9, minute: 5, second: 7)

    @Test func aNameCarriesTheVersionsAndTheUTCTime() {
        #expect(PreMigrateBackup.name(from: 12, to: 13, at: t) == "pre-migrate-12-13-20261204T090507Z")
        #expect(PreMigrateBackup.name(from: 12, to: 13, at: t, sequence: 2) == "pre-migrate-12-13-20261204T090507Z-2")
        #expect(PreMigrateBackup.order(ofName: "pre-migrate-12-13-20261204T090507Z")! == ("20261204T090507Z", 1))
        #expect(PreMigrateBackup.order(ofName: "pre-migrate-12-13-20261204T090507Z-2")! == ("20261204T090507Z", 2))
        for other in ["pre-migrate-notes", "pre-migrate-12-13-20261204T090507Z.partial", "pre-migrate-12-13-20261204T090507Z-1",
                      "pre-migrate-12-13-20261204T090507Z-02", "pre-migrate-x-13-20261204T090507Z", "pre-migrate-12-13-20261204090507Z",
                      "pre-migrate-12-13-2026120T4090507Z", "backup-12-13-20261204T090507Z", "manual"] {
            #expect(PreMigrateBackup.order(ofName: other) == nil, "\(other)")
        }
    }

    @Test func thePreMigrateBackupsPastTheNewestThreeExpireAndNothingElse() {
        let names = ["pre-migrate-11-12-20250101T000000Z", "pre-migrate-12-13-20261204T090507Z-2", "manual-2020",
                     "pre-migrate-12-13-20261204T090507Z", "pre-migrate-10-11-20240101T000000Z", "pre-migrate-9-10-20260101T000000Z.partial",
                     "pre-migrate-12-13-20261201T000000Z"]
        #expect(PreMigrateBackup.expired(names, keeping: 3) == ["pre-migrate-11-12-20250101T000000Z", "pre-migrate-10-11-20240101T000000Z"])
        #expect(PreMigrateBackup.expired(names, keeping: 5).isEmpty)
        #expect(PreMigrateBackup.expired(["manual", "pre-migrate-notes"], keeping: 0).isEmpty)
    }

    @Test func stepListsJoinRuns() {
        #expect(StepList.text([13]) == "13")
        #expect(StepList.text([1, 2, 3, 5, 7, 8]) == "1–3, 5, 7–8")
        #expect(StepList.text([]) == "")
    }
}
