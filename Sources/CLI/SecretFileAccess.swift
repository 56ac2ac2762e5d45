import CExtendedAttributes
import Glibc

/// Who besides this service may read a secret file, judged from its mode, owner group and POSIX
/// ACL. A reader is a leak only outside the service's own identity: systemd's `LoadCredential=`
/// hands a root-owned file readable through an ACL entry for the service user, and a Kubernetes
/// secret mounted with `fsGroup` is readable by a group the service is in; both are fine.
struct SecretFileAccess: Equatable {
    /// A POSIX ACL entry as the kernel stores it in `system.posix_acl_access`.
    struct ACLEntry: Equatable {
        enum Tag: UInt16 {
            case owner = 0x01, user = 0x02, owningGroup = 0x04, group = 0x08, mask = 0x10, others = 0x20
        }
        let tag: Tag
        let permissions: UInt16
        let id: UInt32

        var reads: Bool { permissions & 0o4 != 0 }
    }

    /// The process a file is judged for: its effective user and every group it is in.
    struct Identity: Equatable {
        let user: uid_t
        let groups: Set<gid_t>

        static var current: Identity {
            let count = getgroups(0, nil)
            var groups = [gid_t](repeating: 0, count: Int(max(count, 0)))
            let got = groups.withUnsafeMutableBufferPointer { getgroups(count, $0.baseAddress) }
            return Identity(user: geteuid(), groups: Set(groups.prefix(Int(max(got, 0)))).union([getegid()]))
        }
    }

    /// One way the file is readable by someone outside the identity.
    enum Reader: Equatable {
        case others
        case owningGroup(gid_t)
        case aclUser(uid_t)
        case aclGroup(gid_t)
        /// An ACL this service cannot decode: anyone it names may read.
        case unreadableACL
    }

    let mode: mode_t
    let group: gid_t
    /// Empty when the file has no extended ACL (the mode says everything); nil when it has one
    /// that cannot be read.
    let acl: [ACLEntry]?

    /// The first reader outside `identity`, or nil when only the service (and the file's owner) may read.
    func outsideReader(for identity: Identity) -> Reader? {
        guard let acl else { return .unreadableACL }
        guard !acl.isEmpty else {
            if mode & 0o004 != 0 { return .others }
            if mode & 0o040 != 0, !identity.groups.contains(group) { return .owningGroup(group) }
            return nil
        }
        // With an ACL the group bits of the mode are its mask; named entries and the owning
        // group read only what the mask lets through.
        let mask = acl.first { $0.tag == .mask }
        func reads(_ entry: ACLEntry) -> Bool { entry.reads && (mask?.reads ?? true) }
        for entry in acl {
            switch entry.tag {
            case .others where entry.reads: return .others
            case .owningGroup where reads(entry) && !identity.groups.contains(group): return .owningGroup(group)
            case .user where reads(entry) && entry.id != identity.user: return .aclUser(entry.id)
            case .group where reads(entry) && !identity.groups.contains(entry.id): return .aclGroup(entry.id)
            default: continue
            }
        }
        return nil
    }

    /// Decodes the kernel's ACL attribute: a little-endian version 2 header, then 8-byte entries.
    static func decodeACL(_ bytes: [UInt8]) -> [ACLEntry]? {
        func le16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        func le32(_ at: Int) -> UInt32 { UInt32(le16(at)) | UInt32(le16(at + 2)) << 16 }
        guard bytes.count >= 4, (bytes.count - 4) % 8 == 0, le32(0) == 2 else { return nil }
        var entries: [ACLEntry] = []
        for at in stride(from: 4, to: bytes.count, by: 8) {
            guard let tag = ACLEntry.Tag(rawValue: le16(at)) else { return nil }
            entries.append(ACLEntry(tag: tag, permissions: le16(at + 2), id: le32(at + 4)))
        }
        return entries
    }

    /// The file at `path` as `stat` and its ACL attribute show it; nil when it cannot be looked
    /// at (the read that follows reports why).
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        mode = info.st_mode & 0o7777
        group = info.st_gid
        // The kernel allows at most a few thousand entries; 64 KiB holds any.
        var buffer = [UInt8](repeating: 0, count: 65536)
        let size = buffer.withUnsafeMutableBytes { getxattr(path, "system.posix_acl_access", $0.baseAddress, $0.count) }
        if size > 0 {
            acl = Self.decodeACL(Array(buffer.prefix(size)))
        } else if size == 0 || errno == ENODATA || errno == ENOTSUP {
            acl = []
        } else {
            acl = nil
        }
    }

    init(mode: mode_t, group: gid_t, acl: [ACLEntry]? = []) {
        self.mode = mode
        self.group = group
        self.acl = acl
    }
}

extension SecretFileAccess.Reader {
    /// Who it is, for the refusal's line: `others`, `group staff`, `user 1001 (through its ACL)`.
    var phrase: String {
        switch self {
        case .others: "others"
        case .owningGroup(let gid): "group \(Self.groupName(gid)) (this service is not in it)"
        case .aclUser(let uid): "user \(Self.userName(uid)) (through its ACL)"
        case .aclGroup(let gid): "group \(Self.groupName(gid)) (through its ACL)"
        case .unreadableACL: "whoever its ACL names (an ACL this service cannot read)"
        }
    }

    /// How to take the reader away.
    var fix: String {
        switch self {
        case .others, .owningGroup: "chmod 600 it"
        case .unreadableACL: "chmod 600 it and setfacl -b it"
        case .aclUser(let uid): "chmod 600 it, or setfacl -x u:\(uid) it"
        case .aclGroup(let gid): "chmod 600 it, or setfacl -x g:\(gid) it"
        }
    }

    private static func groupName(_ gid: gid_t) -> String {
        guard let entry = getgrgid(gid), let name = entry.pointee.gr_name else { return String(gid) }
        return String(cString: name)
    }

    private static func userName(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return String(uid) }
        return String(cString: name)
    }
}
