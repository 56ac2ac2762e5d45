import Foundation
import Testing
import TestSupport

/// The release objects of the secret-indexed table scans contain no conditional jump fed by the
/// secret digit, so a compiler upgrade cannot silently turn the masked selection back into a
/// branch (as LLVM did in GLV.swift before the masks went through an optimisation barrier).
/// `scripts/test` builds the release product first; a missing object fails the test.
@Suite struct DisassemblyCheckTests {
    static let objects = Repository.root.appendingPathComponent(".build/release/BBS.build")

    /// The functions that scan a table with a secret digit, by object file and symbol substring;
    /// every pair must be present and extract a digit, or the check would pass by looking at nothing.
    static let required: [(object: String, symbol: String)] = [
        ("GLV.swift.o", "G1PointV19multiScalarMultiply"),
        ("FixedBase.swift.o", "G1PointV28multiScalarMultiplyFixedBase"),  // Sign's fixed-base scan
        ("BBSKeys.swift.o", "10multiplied2byxAA2FrV_tFAA02G2D0V_Tg5"),  // G2 SkToPk, specialised
    ]

    static func isChecked(_ symbol: String) -> Bool {
        (symbol.contains("multiScalarMultiply") || symbol.contains("10multiplied2by"))
            && !symbol.contains("VariableTime") && symbol.contains("FrV")
    }

    @Test func secretDigitsFeedNoConditionalJump() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.objects.path).filter { $0.hasSuffix(".swift.o") }
        #expect(files.contains("GLV.swift.o"), "no release objects in \(Self.objects.path): run swift build -c release --product badge-service")
        var seen = Set<String>()
        for file in files.sorted() {
            let listing = try objdump(Self.objects.appendingPathComponent(file).path)
            for function in DigitTaint.functions(in: listing) where Self.isChecked(function.symbol) {
                let (digitSeen, findings) = DigitTaint.analyse(function.instructions)
                if digitSeen { seen.insert("\(file) \(function.symbol)") }
                #expect(findings.isEmpty, "\(file) \(function.symbol): \(findings.joined(separator: "; "))")
            }
        }
        for (object, symbol) in Self.required {
            #expect(seen.contains { $0.hasPrefix(object + " ") && $0.contains(symbol) },
                    "\(object): no function matching \(symbol) that extracts a four-bit digit")
        }
    }

    /// The analysis flags the branch LLVM emitted in the G1 table scan before the fix: this is
    /// that excerpt of `objdump -d .build/release/BBS.build/GLV.swift.o` (Swift 6.0, commit 9962a06).
    @Test func theCheckFindsTheBranchOfTheUnprotectedScan() {
        let excerpt = """
            1dbf:\tshr    %cl,%rbx
            1dc2:\tand    $0xf,%ebx
            1dc5:\tmov    %r13,%rax
            1dd2:\tmovd   %ebx,%xmm1
            1dd6:\txor    %ecx,%ecx
            1dda:\txor    %esi,%esi
            1e0e:\tjmp    1f08 <x+0x16f8>
            1e20:\tpshufd $0xaa,%xmm9,%xmm10
            1e30:\tmovdqu -0x78(%rax),%xmm3
            1e35:\tpand   %xmm10,%xmm3
            1ef8:\tadd    $0x90,%rax
            1efe:\ttest   $0x1,%dil
            1f02:\tjne    1ba0 <x+0x1390>
            1f08:\tmovq   %rsi,%xmm9
            1f0d:\tinc    %rsi
            1f10:\tmovdqa %xmm12,%xmm10
            1f15:\tpunpcklqdq %xmm9,%xmm10
            1f1a:\tmovq   %rsi,%xmm11
            1f1f:\tpunpcklqdq %xmm1,%xmm11
            1f24:\tpcmpeqd %xmm10,%xmm11
            1f29:\tpshufd $0xb1,%xmm11,%xmm9
            1f2f:\tpand   %xmm11,%xmm9
            1f34:\tpshufd $0xee,%xmm9,%xmm10
            1f3a:\tmovq   %xmm10,%rdi
            1f3f:\ttest   $0x1,%dil
            1f43:\tje     1e20 <x+0x1610>
            """
        let (digitSeen, findings) = DigitTaint.analyse(DigitTaint.instructions(excerpt.split(separator: "\n").map(String.init)))
        #expect(digitSeen)
        #expect(findings.count == 1)
        #expect(findings.first?.hasPrefix("1f43") == true)
    }

    func objdump(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["objdump", "-d", "--no-show-raw-insn", path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "objdump \(path) failed (binutils installed?)")
        return String(decoding: data, as: UTF8.self)
    }
}

/// A forward taint analysis over one function's x86-64 instructions in address order: the
/// secret digit enters where a register is masked to four bits (`and $0xf`), spreads to every
/// register computed from it, and taints the flags an instruction sets from a tainted operand.
/// A conditional jump on tainted flags, or a load addressed by a tainted register, is a finding.
/// Memory is not tracked and calls clobber the caller-saved registers: spilling the digit would
/// hide it, which is why the check also runs on the known-bad excerpt above.
enum DigitTaint {
    struct Instruction {
        let address: String
        let mnemonic: String
        let operands: [String]
    }

    static func functions(in listing: String) -> [(symbol: String, instructions: [Instruction])] {
        var result = [(symbol: String, instructions: [Instruction])]()
        var symbol: String?
        var lines = [String]()
        func flush() { if let s = symbol { result.append((s, instructions(lines))) } }
        for line in listing.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasSuffix(">:"), let open = line.firstIndex(of: "<") {
                flush()
                symbol = String(line[line.index(after: open)..<line.index(line.endIndex, offsetBy: -2)])
                lines = []
            } else if symbol != nil {
                lines.append(line)
            }
        }
        flush()
        return result
    }

    static func instructions(_ lines: [String]) -> [Instruction] {
        lines.compactMap { line in
            let parts = line.split(separator: "\t", maxSplits: 1)
            guard parts.count == 2, parts[0].hasSuffix(":") else { return nil }
            let text = parts[1].split(separator: "#")[0].trimmingCharacters(in: .whitespaces)
            guard let space = text.firstIndex(of: " ") else {
                return Instruction(address: parts[0].trimmingCharacters(in: .whitespaces.union(.init(charactersIn: ":"))), mnemonic: text, operands: [])
            }
            return Instruction(address: parts[0].trimmingCharacters(in: .whitespaces.union(.init(charactersIn: ":"))),
                               mnemonic: String(text[..<space]),
                               operands: splitOperands(text[space...].trimmingCharacters(in: .whitespaces)))
        }
    }

    /// Splits AT&T operands at commas outside parentheses.
    static func splitOperands(_ text: String) -> [String] {
        var parts = [String](), current = "", depth = 0
        for c in text {
            if c == "(" { depth += 1 } else if c == ")" { depth -= 1 }
            if c == ",", depth == 0 { parts.append(current); current = "" } else { current.append(c) }
        }
        if !current.isEmpty { parts.append(current) }
        return parts.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The full register a register operand names (%ebx, %bl, %bx → rbx; %r9d → r9).
    static func register(_ name: Substring) -> String {
        var r = String(name.drop { $0 == "%" })
        if r.hasPrefix("xmm") || r.hasPrefix("ymm") || r.hasPrefix("zmm") { return "xmm" + r.dropFirst(3) }
        if r.hasPrefix("r"), r.count >= 2, r.dropFirst().first!.isNumber {
            while let last = r.last, !last.isNumber { r.removeLast() }
            return r
        }
        let legacy: [String: String] = ["al": "rax", "ah": "rax", "ax": "rax", "eax": "rax", "bl": "rbx", "bh": "rbx", "bx": "rbx", "ebx": "rbx",
                                        "cl": "rcx", "ch": "rcx", "cx": "rcx", "ecx": "rcx", "dl": "rdx", "dh": "rdx", "dx": "rdx", "edx": "rdx",
                                        "sil": "rsi", "si": "rsi", "esi": "rsi", "dil": "rdi", "di": "rdi", "edi": "rdi",
                                        "bpl": "rbp", "bp": "rbp", "ebp": "rbp", "spl": "rsp", "sp": "rsp", "esp": "rsp"]
        return legacy[r] ?? r
    }

    /// The registers an operand reads as a value (a register operand) or as an address (inside a memory operand).
    static func registers(_ operand: String) -> (value: [String], address: [String]) {
        let names = operand.split(separator: "%", omittingEmptySubsequences: false).dropFirst().map { $0.prefix { $0.isLetter || $0.isNumber } }.map { register($0) }
        return operand.contains("(") ? ([], names) : (names, [])
    }

    static let flagSetters: Set<String> = ["add", "adc", "adcx", "adox", "sub", "sbb", "cmp", "test", "and", "or", "xor", "neg", "inc", "dec",
                                           "shl", "shr", "sar", "sal", "rol", "ror", "shld", "shrd", "bt", "bts", "btr", "imul", "mul",
                                           "bsf", "bsr", "tzcnt", "lzcnt", "popcnt", "andn", "blsr", "ptest", "vptest", "comisd", "ucomisd"]
    static let noDestination: Set<String> = ["cmp", "test", "bt", "ptest", "vptest", "comisd", "ucomisd"]
    static let moves: Set<String> = ["mov", "movabs", "movd", "movq", "movdqa", "movdqu", "movaps", "movups", "movzx", "movsx", "movzbl",
                                     "movzwl", "movzbq", "movslq", "movsbl", "lea", "pshufd", "movzbw", "movsbq", "movswl", "movzwq", "movl", "movb", "movw"]
    static let callerSaved = ["rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11"] + (0..<16).map { "xmm\($0)" }

    /// The mnemonic without an AT&T size suffix, when that names a known instruction.
    static func base(_ mnemonic: String) -> String {
        if flagSetters.contains(mnemonic) || moves.contains(mnemonic) { return mnemonic }
        if let last = mnemonic.last, "bwlq".contains(last), flagSetters.contains(String(mnemonic.dropLast())) { return String(mnemonic.dropLast()) }
        return mnemonic
    }

    /// Whether the digit was seen entering, and the findings.
    static func analyse(_ instructions: [Instruction]) -> (digitSeen: Bool, findings: [String]) {
        var tainted = Set<String>(), flagsTainted = false, found = [String](), digitSeen = false
        for ins in instructions {
            // Padding (nop, possibly behind data16/cs prefixes) neither reads nor writes anything.
            if ins.mnemonic.hasPrefix("nop") || ins.mnemonic == "data16" || ins.mnemonic == "cs" { continue }
            let m = base(ins.mnemonic)
            let regs = ins.operands.map(registers)
            // lea only computes an address; every other memory operand is an access.
            for (i, r) in regs.enumerated() where m != "lea" && r.address.contains(where: tainted.contains) {
                found.append("\(ins.address): \(ins.mnemonic) addresses memory with the digit (operand \(i + 1))")
            }
            if m.hasPrefix("j") && m != "jmp" {
                if flagsTainted { found.append("\(ins.address): \(ins.mnemonic) jumps on flags computed from the digit") }
                continue
            }
            if m.hasPrefix("call") {
                tainted.subtract(callerSaved)
                flagsTainted = false
                continue
            }
            guard let destination = ins.operands.last else { continue }
            let sources = ins.operands.dropLast()
            let destinationRegister = regs.last!.value.first
            let sourceTaint = sources.contains { operand in
                let r = registers(operand)
                return (r.value + (m == "lea" ? r.address : [])).contains(where: tainted.contains)
            }
            let destinationTaint = destinationRegister.map(tainted.contains) ?? false
            // Zeroing idioms and moves overwrite; other operations combine source and destination.
            let zeroing = ["xor", "pxor", "sub", "xorps"].contains(m) && sources.first == destination
            var result: Bool
            if zeroing {
                result = false
            } else if m == "and", sources.first == "$0xf" {
                result = true  // the digit enters here
                digitSeen = true
            } else if moves.contains(m) || m.hasPrefix("set") {
                result = sourceTaint || (m.hasPrefix("set") && flagsTainted)
            } else if m.hasPrefix("cmov") {
                result = sourceTaint || destinationTaint || flagsTainted
            } else {
                result = sourceTaint || destinationTaint
            }
            if flagSetters.contains(m) { flagsTainted = noDestination.contains(m) ? (sourceTaint || destinationTaint) : result }
            if noDestination.contains(m) { continue }
            if let d = destinationRegister {
                if result { tainted.insert(d) } else { tainted.remove(d) }
            }
        }
        return (digitSeen, found)
    }
}
