import Foundation
import TestSupport
import TestTraits
import Testing

@testable import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 10: the shared check on a stage's files, non-regular targets, stale temporary files.
@Suite(.offCooperativePool) struct StageFilesTests {
    @Test(.bug(id: 10)) func sameFileIsFoundByInodeOrResolvedPath() throws {
        let directory = TemporaryDirectory("stage-files")
        let input = directory.write("in.csv", "x")
        try FileManager.default.createDirectory(atPath: directory.file("sub"), withIntermediateDirectories: false)
        symlink(input, directory.file("link"))
        link(input, directory.file("hard"))
        for output in [input, directory.file("link"), directory.file("hard"), directory.file("sub/../in.csv")] {
            #expect(throws: UsageError.self, "\(output)") { try StageFiles.check(inputs: [input], outputs: [output]) }
        }
        // Two outputs that do not exist yet, spelt differently.
        #expect(throws: UsageError.self) {
            try StageFiles.check(inputs: [input], outputs: [directory.file("a.gz"), nil, directory.file("sub/../a.gz")])
        }
        // Inputs may repeat (merge reads the library twice), distinct outputs are fine.
        try StageFiles.check(inputs: [input, input], outputs: [directory.file("a.gz"), directory.file("b.gz"), nil])
    }

    @Test(.bug(id: 10)) func nonRegularFilesAreRefused() throws {
        let directory = TemporaryDirectory("stage-files")
        let fifo = directory.file("fifo")
        try #require(mkfifo(fifo, 0o644) == 0)
        #expect(throws: FileError.self) { try StageFiles.check(inputs: [fifo], outputs: []) }
        #expect(throws: FileError.self) { try StageFiles.check(inputs: [], outputs: ["/dev/null"]) }
        #expect(throws: FileError.self) { _ = try AtomicFile(path: fifo) }
        #expect(throws: FileError.self) { _ = try AtomicFile(path: directory.path) }
        #expect(throws: FileError.self) { _ = try GzipReader(path: fifo) }
        do {
            try AtomicFile.write("x", to: "/dev/null")
            Issue.record("replaced /dev/null")
        } catch let error as FileError {
            #expect(error.exitStatus == .cannotCreate)
        }
    }

    @Test(
        .bug(id: 10),
        arguments: [
            (".out.gz.tmp-123-abc123", Int32(123)), (".library.previous.tmp-45", 45), (".x.tmp-7-", 7),
            ("out.gz.tmp-123-abc", nil), (".out.gz.tmp-abc", nil), (".out.gz.tmp-12x", nil), (".out.gz", nil),
            (".out.gz.tmp-0", nil),
        ] as [(String, Int32?)])
    func temporaryFileNameGivesItsOwnerProcess(_ name: String, _ pid: Int32?) {
        #expect(StaleTemporaryFiles.owner(ofTemporary: name) == pid)
    }

    @Test(.bug(id: 10)) func sweepRemovesOnlyDeadProcessesFiles() throws {
        let directory = TemporaryDirectory("stage-files")
        let dead = try Self.deadProcessID()
        directory.write(".a.tmp-\(dead)-xyz", "stale")
        directory.write(".a.tmp-\(getpid())-xyz", "mine")
        directory.write(".a.tmp-1-xyz", "init's")
        directory.write("a", "target")
        #expect(StaleTemporaryFiles.sweep(directory: directory.path) == [".a.tmp-\(dead)-xyz"])
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(left == [".a.tmp-1-xyz", ".a.tmp-\(getpid())-xyz", "a"])
    }

    /// The PID of a process that has ended (`/bin/true`, run and waited for).
    static func deadProcessID() throws -> Int32 {
        let finished = Process()
        finished.executableURL = URL(fileURLWithPath: "/bin/true")
        try finished.run()
        finished.waitUntilExit()
        return finished.processIdentifier
    }

    /// Names of every length up to NAME_MAX are read in place from readdir's records (copying the whole
    /// `dirent` could read past readdir's buffer): each stale one is found by its full name.
    @Test func sweepReadsNamesOfEveryLengthAmongManyEntries() throws {
        let directory = TemporaryDirectory("stage-files-many")
        let suffix = ".tmp-\(try Self.deadProcessID())"
        var stale: [String] = []
        for length in 1...(255 - suffix.count - 1) {
            let name = "." + String(repeating: "n", count: length) + suffix
            directory.write(name, "")
            directory.write(String(repeating: "k", count: length), "")
            stale.append(name)
        }
        #expect(StaleTemporaryFiles.sweep(directory: directory.path).sorted() == stale.sorted())
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == stale.count)
    }
}
