import HTTPServer
import Testing

/// Issue 8, item 1 and 4: who gets a connection slot, and how many the descriptors allow.
@Suite struct ConnectionPolicyTests {
    @Test func defaultsAreWellBelowTheTable() {
        let policy = ConnectionPolicy(maxConnections: 10_000)
        #expect(policy.maxPerAddress == 250)
        #expect(policy.idleReserve == 200)
        #expect(ConnectionPolicy(maxConnections: 1).maxPerAddress == 1)
        #expect(ConnectionPolicy(maxConnections: 1).idleReserve == 0)
    }

    /// One address fills its share and is refused; another address still gets a slot.
    @Test func oneAddressCannotTakeTheTable() {
        let policy = ConnectionPolicy(maxConnections: 100, maxPerAddress: 10, idleReserve: 5)
        #expect(policy.decide(open: 9, openFromAddress: 9) == .accept)
        #expect(policy.decide(open: 10, openFromAddress: 10) == .refuseAddressFull)
        #expect(policy.decide(open: 10, openFromAddress: 0) == .accept)
    }

    /// The reserve: once fewer than `idleReserve` slots are free, accepting evicts idle ones;
    /// a full table refuses (and evicts, so that the retry finds a slot).
    @Test func theReserveEvictsIdleConnectionsBeforeTheTableIsFull() {
        let policy = ConnectionPolicy(maxConnections: 100, maxPerAddress: 100, idleReserve: 5)
        #expect(policy.decide(open: 94, openFromAddress: 0) == .accept)
        #expect(policy.decide(open: 95, openFromAddress: 0) == .acceptAndEvictIdle)
        #expect(policy.decide(open: 99, openFromAddress: 50) == .acceptAndEvictIdle)
        #expect(policy.decide(open: 100, openFromAddress: 0) == .refuseTableFull)
    }

    @Test func oldestIdleFirst() {
        let idle: [(id: Int, since: UInt64)] = [(1, 50), (2, 10), (3, 40), (4, 20), (5, 30)]
        #expect(ConnectionPolicy.oldestIdle(idle, count: 2) == [2, 4])
        #expect(ConnectionPolicy.oldestIdle(idle, count: 3) == [2, 4, 5])
        #expect(ConnectionPolicy.oldestIdle(idle, count: 9) == [2, 4, 5, 3, 1])
        #expect(ConnectionPolicy.oldestIdle(idle, count: 0).isEmpty)
        let many = (0..<1000).map { (id: $0, since: UInt64((($0 * 7919) % 1000))) }
        #expect(ConnectionPolicy.oldestIdle(many, count: 5).map { many[$0].since } == [0, 1, 2, 3, 4])
    }

    /// `max_connections` fits under RLIMIT_NOFILE; the soft limit is raised as far as the hard one allows.
    @Test func connectionsFitTheDescriptorLimit() {
        #expect(DescriptorBudget.wantedSoftLimit(connections: 10_000, reserved: 64, soft: 1024, hard: 524_288) == 10_064)
        #expect(DescriptorBudget.wantedSoftLimit(connections: 10_000, reserved: 64, soft: 1024, hard: 1024) == 1024)
        #expect(DescriptorBudget.wantedSoftLimit(connections: 100, reserved: 64, soft: 4096, hard: 8192) == 4096)
        #expect(DescriptorBudget.maxConnections(configured: 10_000, reserved: 64, soft: 1024) == 960)
        #expect(DescriptorBudget.maxConnections(configured: 500, reserved: 64, soft: 1024) == 500)
        #expect(DescriptorBudget.maxConnections(configured: 500, reserved: 64, soft: 10) == 1)
    }

    /// EMFILE is reported at most once per interval, with the count of what was suppressed.
    @Test func reportsAtMostOncePerInterval() {
        var report = OncePerInterval(interval: 10)
        #expect(report.occurred(at: 100) == 1)
        #expect(report.occurred(at: 101) == nil)
        #expect(report.occurred(at: 109) == nil)
        #expect(report.occurred(at: 110) == 3)
        #expect(report.occurred(at: 200) == 1)
    }
}
