import FuzzDriver
#if canImport(Glibc)
import Glibc
#endif

/// The harness's one-input function, set once by ``fuzzMain(_:)`` before libFuzzer runs.
nonisolated(unsafe) private var testOneInput: ((UnsafeRawBufferPointer) -> Void)?

/// libFuzzer's entry point: one input, whatever its bytes. A crash, a trap or a sanitizer
/// report is the finding; the return value is always 0 (the input may join the corpus).
@_cdecl("LLVMFuzzerTestOneInput")
public func llvmFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    testOneInput?(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// Runs libFuzzer over `test` with the process's arguments (`-runs=`, `-merge=1`, corpus
/// directories, a crash file to replay…) and exits with its status.
public func fuzzMain(_ test: @escaping (UnsafeRawBufferPointer) -> Void) -> Never {
    testOneInput = test
    exit(fuzz_driver_main(CommandLine.argc, CommandLine.unsafeArgv))
}
