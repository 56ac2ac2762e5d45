@testable import CLI
import Foundation
import Glibc
import TestSupport
import Testing

/// A secret file is refused only when someone outside the service's own user and groups may read
/// it: the way systemd's `LoadCredential=` (a root-owned file, an ACL entry for the service user)
/// and Kubernetes' `fsGroup` (a group the service is in) hand secrets over is accepted.
@Suite struct SecretFileAccessTests {
    typealias Entry = SecretFileAccess.ACLEntry
    let service = SecretFileAccess.Identity(user: 990, groups: [990, 2000])

    /// A group this process is not in, from the group database (tests chown files to it).
    static func groupOutside() -> (gid: gid_t, name: String)? {
        let mine = SecretFileAccess.Identity.current.groups
        for candidate in ["nogroup", "nobody", "daemon", "bin", "sys", "adm"] {
            if let entry = getgrnam(candidate), !mine.contains(entry.pointee.gr_gid) {
                return (entry.pointee.gr_gid, candidate)
            }
        }
        return nil
    }

    @Test func theModeAloneJudgesAFileWithoutAnACL() {
        #expect(SecretFileAccess(mode: 0o600, group: 42).outsideReader(for: service) == nil)
        #expect(SecretFileAccess(mode: 0o400, group: 42).outsideReader(for: service) == nil)
        #expect(SecretFileAccess(mode: 0o604, group: 990).outsideReader(for: service) == .others)
        #expect(SecretFileAccess(mode: 0o644, group: 990).outsideReader(for: service) == .others)
        // a group the service is in: its primary group, or a supplementary one (Kubernetes fsGroup)
        #expect(SecretFileAccess(mode: 0o640, group: 990).outsideReader(for: service) == nil)
        #expect(SecretFileAccess(mode: 0o440, group: 2000).outsideReader(for: service) == nil)
        #expect(SecretFileAccess(mode: 0o640, group: 42).outsideReader(for: service) == .owningGroup(42))
        // writing is not reading: only readers leak a secret
        #expect(SecretFileAccess(mode: 0o620, group: 42).outsideReader(for: service) == nil)
        #expect(SecretFileAccess(mode: 0o602, group: 42).outsideReader(for: service) == nil)
    }

    /// What systemd's LoadCredential= makes for a service user: root's file, mode 0440 as `stat`
    /// shows it (the mask), the owning group with nothing, one named entry for the service.
    @Test func aCredentialSystemdGrantsTheServiceUserIsAccepted() {
        let credential = SecretFileAccess(mode: 0o440, group: 0, acl: [
            Entry(tag: .owner, permissions: 0o4, id: .max), Entry(tag: .user, permissions: 0o4, id: 990),
            Entry(tag: .owningGroup, permissions: 0, id: .max), Entry(tag: .mask, permissions: 0o4, id: .max),
            Entry(tag: .others, permissions: 0, id: .max),
        ])
        #expect(credential.outsideReader(for: service) == nil)
        // the same file granted to another user is another user's to read
        let another = SecretFileAccess(identity: 991, credential)
        #expect(another.outsideReader(for: service) == .aclUser(991))
    }

    @Test func anACLJudgesEachEntryThroughItsMask() {
        func file(_ entries: [Entry]) -> SecretFileAccess { SecretFileAccess(mode: 0o640, group: 42, acl: entries) }
        let base = [Entry(tag: .owner, permissions: 0o6, id: .max), Entry(tag: .others, permissions: 0, id: .max)]
        // the owning group reads: not the service's
        #expect(file(base + [Entry(tag: .owningGroup, permissions: 0o4, id: .max), Entry(tag: .mask, permissions: 0o4, id: .max)])
            .outsideReader(for: service) == .owningGroup(42))
        // the mask takes the read away from every named entry and the owning group
        #expect(file(base + [Entry(tag: .owningGroup, permissions: 0o4, id: .max), Entry(tag: .user, permissions: 0o4, id: 7),
                             Entry(tag: .group, permissions: 0o4, id: 8), Entry(tag: .mask, permissions: 0, id: .max)])
            .outsideReader(for: service) == nil)
        // a named group the service is in, and one it is not in
        #expect(file(base + [Entry(tag: .owningGroup, permissions: 0, id: .max), Entry(tag: .group, permissions: 0o4, id: 2000),
                             Entry(tag: .mask, permissions: 0o4, id: .max)]).outsideReader(for: service) == nil)
        #expect(file(base + [Entry(tag: .owningGroup, permissions: 0, id: .max), Entry(tag: .group, permissions: 0o4, id: 8),
                             Entry(tag: .mask, permissions: 0o4, id: .max)]).outsideReader(for: service) == .aclGroup(8))
        // others in the ACL
        #expect(SecretFileAccess(mode: 0o604, group: 42, acl: [Entry(tag: .owner, permissions: 0o6, id: .max),
                                                               Entry(tag: .owningGroup, permissions: 0, id: .max),
                                                               Entry(tag: .others, permissions: 0o4, id: .max)])
            .outsideReader(for: service) == .others)
        // an ACL that cannot be read is judged as readable by whoever it names
        #expect(SecretFileAccess(mode: 0o600, group: 42, acl: nil).outsideReader(for: service) == .unreadableACL)
    }

    @Test func theKernelsACLAttributeDecodes() throws {
        // version 2, then (tag, permissions, id) little-endian: user::rw- user:990:r-- group::--- mask::r-- other::---
        let bytes: [UInt8] = [2, 0, 0, 0,
                              1, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,
                              2, 0, 4, 0, 0xde, 0x03, 0, 0,
                              4, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
                              0x10, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
                              0x20, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]
        let entries = try #require(SecretFileAccess.decodeACL(bytes))
        #expect(entries.map(\.tag) == [.owner, .user, .owningGroup, .mask, .others])
        #expect(entries[1].id == 990 && entries[1].reads && !entries[2].reads)
        #expect(SecretFileAccess.decodeACL(Array(bytes.dropLast())) == nil)
        #expect(SecretFileAccess.decodeACL([1, 0, 0, 0]) == nil)
        var unknownTag = bytes
        unknownTag[4] = 0x40
        #expect(SecretFileAccess.decodeACL(unknownTag) == nil)
    }

    /// The same rules on real files, as setfacl and chown leave them, for this process.
    @Test func realFilesWithACLsAreJudgedForThisProcess() throws {
        let dir = TemporaryDirectory("secret-access")
        let path = dir.file("secret")
        try "s\n".write(toFile: path, atomically: true, encoding: .utf8)
        let me = SecretFileAccess.Identity.current
        chmod(path, 0o400)
        #expect(try setfacl(["-m", "u:\(me.user):r", path]) == 0)
        let granted = try #require(SecretFileAccess(path: path))
        #expect(granted.mode & 0o777 == 0o440, "the mask shows as the group bits")
        #expect(granted.outsideReader(for: me) == nil)
        #expect(FileSystem.outsideReaders(path) == nil)

        let outsider = try #require(Self.groupOutside())
        #expect(try setfacl(["-m", "g:\(outsider.gid):r", path]) == 0)
        #expect(SecretFileAccess(path: path)?.outsideReader(for: me) == .aclGroup(outsider.gid))
        #expect { try FileSystem.refuseShared(path, naming: "[apple] private_key") } throws: {
            "\($0)" == "[apple] private_key \(path) has mode 0440: readable by group \(outsider.name) (through its ACL); chmod 600 it, or setfacl -x g:\(outsider.gid) it"
        }
        #expect(try setfacl(["-b", path]) == 0)
        chmod(path, 0o440)
        #expect(chown(path, geteuid(), outsider.gid) == 0)
        #expect(SecretFileAccess(path: path)?.outsideReader(for: me) == .owningGroup(outsider.gid))
        #expect(chown(path, geteuid(), getegid()) == 0)
        #expect(FileSystem.outsideReaders(path) == nil, "a group this process is in, as Kubernetes' fsGroup gives")
    }

    private func setfacl(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setfacl")
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

private extension SecretFileAccess {
    /// `file` with its named user entries given to `user` instead.
    init(identity user: uid_t, _ file: SecretFileAccess) {
        self.init(mode: file.mode, group: file.group,
                  acl: file.acl?.map { $0.tag == .user ? ACLEntry(tag: .user, permissions: $0.permissions, id: user) : $0 })
    }
}
