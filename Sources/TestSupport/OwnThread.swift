import Foundation

/// Runs blocking `work` (a child process that runs for many seconds) on a thread of its own and
/// awaits it, so the test does not hold one of the few threads of the cooperative pool that
/// Swift Testing runs every test on; holding them starves tests that await.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
