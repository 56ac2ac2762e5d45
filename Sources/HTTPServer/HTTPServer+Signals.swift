import Dispatch
import Glibc

extension HTTPServer {
    /// Blocks until SIGTERM or SIGINT arrives, then shuts down gracefully and returns once the
    /// loops have stopped. The executable's `serve` is: start, `runUntilTerminated()`, exit 0.
    ///
    /// The two signals are ignored process-wide from then on (their default action would kill the
    /// process before in-flight responses are written); Dispatch signal sources observe them.
    public func runUntilTerminated() {
        let queue = DispatchQueue(label: "http-server.signals")
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { [self] in shutdown() }
            source.resume()
            sources.append(source)
        }
        waitUntilStopped()
        sources.forEach { $0.cancel() }
    }
}
