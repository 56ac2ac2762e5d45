import Glibc

/// Applies ``DescriptorBudget`` to this process: raises the soft `RLIMIT_NOFILE` as far as the
/// hard limit allows, and returns the connections that fit.
enum DescriptorLimit {
    static func fit(connections: Int, reserved: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return connections }
        let hard = Int(clamping: limit.rlim_max)  // RLIM_INFINITY is all ones: clamps to Int.max
        let soft = Int(clamping: limit.rlim_cur)
        let wanted = DescriptorBudget.wantedSoftLimit(connections: connections, reserved: reserved, soft: soft, hard: hard)
        if wanted > soft {
            limit.rlim_cur = rlim_t(wanted)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
                return DescriptorBudget.maxConnections(configured: connections, reserved: reserved, soft: wanted)
            }
        }
        return DescriptorBudget.maxConnections(configured: connections, reserved: reserved, soft: soft)
    }
}
