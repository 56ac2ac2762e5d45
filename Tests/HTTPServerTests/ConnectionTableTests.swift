import Glibc
@testable import HTTPServer
import Testing

/// The shared connection table: slots per address, refusals counted, descriptor shortages
/// reported at most once per 10 s and reflected (for /readyz) for 5 s.
@Suite struct ConnectionTableTests {
    @Test func slotsAreCountedPerAddressAndReleased() {
        let table = ConnectionTable(policy: ConnectionPolicy(maxConnections: 10, maxPerAddress: 2, idleReserve: 1))
        #expect(table.admit("192.0.2.1") == .accept)
        #expect(table.admit("192.0.2.1") == .accept)
        #expect(table.admit("192.0.2.1") == .refuseAddressFull)
        #expect(table.admit("192.0.2.2") == .accept)
        table.release("192.0.2.1")
        #expect(table.admit("192.0.2.1") == .accept)
        #expect(table.count == 3)
        #expect(table.statistics.refusedAddressFull == 1)
    }

    @Test func theLimitIsClampedToTheDescriptors() {
        let table = ConnectionTable(policy: ConnectionPolicy(maxConnections: 10_000))
        table.clamp(maxConnections: 960)
        #expect(table.policy.maxConnections == 960)
        #expect(table.policy.maxPerAddress == 250)
        #expect(table.statistics.maxConnections == 960)
        table.clamp(maxConnections: 20_000)   // never raised
        #expect(table.policy.maxConnections == 960)
    }

    @Test func descriptorShortagesAreReportedOncePerIntervalAndClearByThemselves() {
        let table = ConnectionTable(policy: ConnectionPolicy(maxConnections: 100))
        let second: UInt64 = 1_000_000_000
        #expect(!table.shortOfDescriptors(now: 100 * second, window: 5 * second))
        #expect(table.descriptorShortage(errno: EMFILE, at: 100 * second) == 1)
        #expect(table.descriptorShortage(errno: EMFILE, at: 101 * second) == nil)
        #expect(table.descriptorShortage(errno: ENFILE, at: 102 * second) == nil)
        #expect(table.descriptorShortage(errno: EMFILE, at: 110 * second) == 3)
        #expect(table.statistics.acceptEMFILE == 3 && table.statistics.acceptENFILE == 1)
        #expect(table.shortOfDescriptors(now: 114 * second, window: 5 * second))
        #expect(!table.shortOfDescriptors(now: 115 * second, window: 5 * second))
    }
}
