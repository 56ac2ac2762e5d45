import FuzzDriver
#if canImport(Glibc)
import Glibc
#endif

/// The harness's one-input function, set once by ``fuzzMain(_:)`` before libFuzzer runs.
nonisolated(unsafe) private var testOneInput: ((UnsafeRawBufferPointer) -> Void)?

/// CPU seconds one input may take (`FUZZ_CPU_LIMIT_SECONDS`, default 1).
nonisolated(unsafe) private var cpuLimitSeconds = 1.0

/// libFuzzer's entry point: one input, whatever its bytes. A crash, a trap or a sanitizer
/// report is the finding; so is an input that took over the CPU limit (a hang, measured in CPU
/// time of this thread rather than wall time, so that a run starved by a busy machine does not
/// report one). The return value is always 0 (the input may join the corpus).
@_cdecl("LLVMFuzzerTestOneInput")
public func llvmFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let start = threadCPUSeconds()
    testOneInput?(UnsafeRawBufferPointer(start: data, count: size))
    let spent = threadCPUSeconds() - start
    if spent > cpuLimitSeconds {
        fatalError("one input took \(spent) s of CPU, over the limit of \(cpuLimitSeconds) s")
    }
    return 0
}

/// Runs libFuzzer over `test` with the process's arguments (`-runs=`, `-merge=1`, corpus
/// directories, a crash file to replay…) and exits with its status.
public func fuzzMain(_ test: @escaping (UnsafeRawBufferPointer) -> Void) -> Never {
    testOneInput = test
    if let text = getenv("FUZZ_CPU_LIMIT_SECONDS"), let limit = Double(String(cString: text)) { cpuLimitSeconds = limit }
    exit(fuzz_driver_main(CommandLine.argc, CommandLine.unsafeArgv))
}

private func threadCPUSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
