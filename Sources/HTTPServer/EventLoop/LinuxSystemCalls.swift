import Glibc

/// The Linux calls Swift's Glibc module does not export (`<sys/epoll.h>`, `<sys/eventfd.h>`,
/// `accept4`), resolved once with dlsym so the target needs no C shim module. Constants are
/// the Linux UAPI values, identical on x86_64 and aarch64.
enum Linux {
    typealias EpollCreate1 = @convention(c) (Int32) -> Int32
    typealias EpollCtl = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    typealias EpollWait = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32
    typealias EventFD = @convention(c) (UInt32, Int32) -> Int32
    typealias Accept4 = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32
    typealias MallocTrim = @convention(c) (Int) -> Int32

    nonisolated(unsafe) static let epollCreate1: EpollCreate1 = symbol("epoll_create1")
    nonisolated(unsafe) static let epollCtl: EpollCtl = symbol("epoll_ctl")
    nonisolated(unsafe) static let epollWait: EpollWait = symbol("epoll_wait")
    nonisolated(unsafe) static let eventfd: EventFD = symbol("eventfd")
    nonisolated(unsafe) static let accept4: Accept4 = symbol("accept4")
    /// glibc's `malloc_trim` (`<malloc.h>`): returns free heap memory of every arena to the system.
    nonisolated(unsafe) static let mallocTrim: MallocTrim = symbol("malloc_trim")

    static let epollIn: UInt32 = 0x001
    static let epollOut: UInt32 = 0x004
    static let epollErr: UInt32 = 0x008
    static let epollHup: UInt32 = 0x010
    static let epollRdHup: UInt32 = 0x2000
    static let epollET: UInt32 = 1 << 31
    static let epollExclusive: UInt32 = 1 << 28
    static let epollCtlAdd: Int32 = 1
    static let epollCtlDel: Int32 = 2
    static let closeOnExec: Int32 = 0o2000000
    static let nonBlocking: Int32 = 0o4000

    #if arch(x86_64)
    /// `struct epoll_event` is packed on x86_64: events at 0, data at 4, 12 bytes.
    static let epollEventSize = 12
    static let epollDataOffset = 4
    #else
    static let epollEventSize = 16
    static let epollDataOffset = 8
    #endif

    private static func symbol<T>(_ name: String) -> T {
        guard let handle = dlopen(nil, RTLD_NOW), let pointer = dlsym(handle, name) else {
            fatalError("libc symbol \(name) not found")
        }
        return unsafeBitCast(pointer, to: T.self)
    }

    /// Registers `fd` with `events`, tagging its notifications with `tag`.
    static func epollAdd(_ epoll: Int32, _ fd: Int32, events: UInt32, tag: UInt64) -> Bool {
        withUnsafeTemporaryAllocation(byteCount: epollEventSize, alignment: 8) { event in
            event.storeBytes(of: events, toByteOffset: 0, as: UInt32.self)
            event.storeBytes(of: tag, toByteOffset: epollDataOffset, as: UInt64.self)
            return epollCtl(epoll, epollCtlAdd, fd, event.baseAddress) == 0
        }
    }

    static func epollRemove(_ epoll: Int32, _ fd: Int32) {
        withUnsafeTemporaryAllocation(byteCount: epollEventSize, alignment: 8) { event in
            _ = epollCtl(epoll, epollCtlDel, fd, event.baseAddress)
        }
    }
}
