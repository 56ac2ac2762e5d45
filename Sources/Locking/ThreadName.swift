import Glibc

/// pthread_setname_np(3), which Glibc's Swift module leaves out (it is declared under _GNU_SOURCE).
@_silgen_name("pthread_setname_np")
private func setThreadName(_ thread: pthread_t, _ name: UnsafePointer<CChar>) -> Int32

/// Names the calling thread for the kernel, so it shows in `top -H`, `ps -L` and profiles
/// (Foundation's `Thread.name` does not reach the kernel on Linux). At most 15 bytes are kept.
public func nameCurrentThread(_ name: String) {
    _ = setThreadName(pthread_self(), String(name.utf8.prefix(15))!)
}
