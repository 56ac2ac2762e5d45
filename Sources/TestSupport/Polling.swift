import Glibc

/// Polls `condition` every 10 ms until it holds or `timeout` passes; returns its last value.
/// Tests wait for what they need with this, never for a fixed time.
@discardableResult
public func waitUntil(timeout: Duration = .seconds(3), _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        usleep(10_000)
    }
    return true
}
