import Foundation
import ShelflineCore
import TestSupport
import Testing

/// `ContentHash.copy` hashes and writes each chunk on two threads, the next chunk read ahead
/// (issue 25): the copy must still be the source's bytes, and the hash theirs.
@Suite struct ContentHashTests {
    /// Bytes in memory, for checking what the copy wrote and in which order.
    final class MemorySink: ByteSink {
        var bytes: [UInt8] = []
        var failAfter: Int?
        struct Full: Error, Equatable {}

        func write(_ chunk: UnsafeRawBufferPointer) throws {
            if let failAfter, bytes.count + chunk.count > failAfter { throw Full() }
            bytes.append(contentsOf: chunk)
        }
    }

    static func source(_ directory: TemporaryDirectory, size: Int) -> (path: String, bytes: [UInt8]) {
        var generator = SeededGenerator(seed: UInt64(size))
        let bytes = (0..<size).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        return (directory.write("source.bin", bytes: bytes), bytes)
    }

    @Test(arguments: [0, 1, 1 << 20, (1 << 20) + 1, 5 * (1 << 20) + 12_345])
    func theCopyIsTheSourcesBytesAndTheHashTheirs(size: Int) throws {
        let directory = TemporaryDirectory("content-hash")
        let (path, bytes) = Self.source(directory, size: size)
        let sink = MemorySink()
        let hash = try ContentHash.copy(path, into: sink)
        #expect(sink.bytes == bytes)
        #expect(hash == ContentHash.bytes(bytes))
        #expect(hash == (try ContentHash.file(path)))
    }

    /// An `AtomicFile` takes each chunk's halves at their offsets, from two threads at once.
    @Test(.bug(id: 25), arguments: [0, 1, 3, 1 << 20, (1 << 20) + 1, 5 * (1 << 20) + 12_345])
    func aCopyIntoAnAtomicFileIsTheSourcesBytesInPlace(size: Int) throws {
        let directory = TemporaryDirectory("content-hash-atomic")
        let (path, bytes) = Self.source(directory, size: size)
        let file = try AtomicFile(path: directory.file("copy.bin"), permissions: 0o600)
        let hash = try ContentHash.copy(path, into: file)
        try file.commit()
        #expect(FileManager.default.contents(atPath: directory.file("copy.bin")).map(Array.init) == bytes)
        #expect(hash == ContentHash.bytes(bytes))
    }

    @Test func aSinkThatFailsStopsTheCopyWithItsError() throws {
        let directory = TemporaryDirectory("content-hash-full")
        let (path, _) = Self.source(directory, size: 4 * (1 << 20))
        let sink = MemorySink()
        sink.failAfter = 2 * (1 << 20) + 1
        #expect(throws: MemorySink.Full()) { try ContentHash.copy(path, into: sink) }
        #expect(sink.bytes.count == 2 * (1 << 20))
    }

    @Test func aMissingSourceIsMissingInput() throws {
        let directory = TemporaryDirectory("content-hash-missing")
        let error = #expect(throws: FileError.self) { try ContentHash.copy(directory.file("gone.csv"), into: MemorySink()) }
        #expect(error?.exitStatus == .noInput)
    }
}
