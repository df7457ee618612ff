import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineLibrary

/// Issue 12, dedupe's and merge's memory: the books' ids spooled to an unlinked scratch file.
@Suite struct SpooledArrayTests {
    @Test(.bug(id: 12)) func idsComeBackFromMemoryAndFromTheFile() throws {
        let directory = TemporaryDirectory("book-id-file")
        let ids = try SpooledArray<UInt64>(directory: directory.path)
        var generator = SeededGenerator(seed: 12)
        var reference: [UInt64] = []
        // Several chunks written to the file, and a partial one still in memory; read back as they go.
        for number in 0..<300_000 {
            let id = generator.next()
            try ids.append(id)
            reference.append(id)
            if number % 997 == 0 {
                let earlier = Int(generator.next() % UInt64(reference.count))
                #expect(try ids.value(earlier) == reference[earlier])
            }
        }
        #expect(ids.count == reference.count)
        for _ in 0..<20_000 {
            let number = Int(generator.next() % UInt64(reference.count))
            #expect(try ids.value(number) == reference[number])
        }
        #expect(try ids.value(0) == reference[0])
        #expect(try ids.value(reference.count - 1) == reference.last)
        // Nothing is left in the directory, whatever ends the process.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test(.bug(id: 12)) func aDirectoryThatCannotTakeTheFileIsAClearError() throws {
        let directory = TemporaryDirectory("book-id-file-missing")
        let missing = directory.file("no-such-directory")
        do {
            _ = try SpooledArray<UInt64>(directory: missing)
            Issue.record("a file was made in a directory that does not exist")
        } catch let error as FileError {
            #expect(error.exitStatus == .cannotCreate)
            #expect(error.description.hasPrefix(missing + "/.book-ids-"))
            #expect(error.description.hasSuffix(": cannot create output: No such file or directory"))
            #expect(!error.description.contains("\n"))
        }
    }

    @Test(.bug(id: 12)) func aScratchErrorSaysWhatFailedInOneLine() {
        let error = LibraryError.scratchIO(path: "/work/library/.merge-work-1/.book-ids-1-1", reason: "read: short read")
        #expect(error.exitStatus == .ioError)
        #expect(
            error.description
                == "/work/library/.merge-work-1/.book-ids-1-1: I/O error on a scratch file: read: short read; nothing was written"
        )
    }
}
