import Foundation
import ShelflineCore
import TestSupport
import Testing

/// Issue 12: `GzipReader` inflates members of up to 1 MiB whole (libdeflate) and hands the first
/// member it cannot take whole, and the rest of the file, to zlib's stream. Whichever path a byte
/// takes, the reader gives the same bytes and the same errors.
@Suite struct GzipWholeMemberTests {
    func read(_ path: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try GzipReader(path: path).forEachChunk { bytes += $0 }
        return bytes
    }

    func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    func packed(_ bytes: [UInt8], chunkSize: Int, in dir: TemporaryDirectory, name: String) throws -> [UInt8] {
        let path = try GzipFixture.write(bytes: bytes, to: dir.file(name), chunkSize: chunkSize)
        return [UInt8](FileManager.default.contents(atPath: path)!)
    }

    /// Small members, then one larger than the whole-member limit (zlib from there on), then small
    /// members again: every byte comes back, in order.
    @Test func aMemberLargerThanTheLimitAndEverythingAfterItGoThroughZlib() throws {
        let dir = TemporaryDirectory()
        let first = Array((0..<50_000).map { "line \($0)\n" }.joined().utf8)
        let large = randomBytes(3 << 20, seed: 1)
        let last = Array((0..<20_000).map { "tail \($0)\n" }.joined().utf8)
        let file =
            try packed(first, chunkSize: 64 << 10, in: dir, name: "a.gz")
            + packed(large, chunkSize: 4 << 20, in: dir, name: "b.gz")
            + packed(last, chunkSize: 64 << 10, in: dir, name: "c.gz")
        let path = dir.write("all.gz", bytes: file)
        #expect(try read(path) == first + large + last)
    }

    /// Incompressible members of 1 MiB are about as large compressed, so the reader's buffer ends
    /// inside members again and again: each is inflated once the rest of it is read.
    @Test(arguments: [1 << 20, 700_001, 4096])
    func membersCutByTheReadBufferAreReadWhole(chunkSize: Int) throws {
        let dir = TemporaryDirectory()
        let bytes = randomBytes(9 << 20, seed: UInt64(chunkSize))
        let path = try GzipFixture.write(bytes: bytes, to: dir.file("r.gz"), chunkSize: chunkSize)
        #expect(try read(path) == bytes)
    }

    /// A damaged byte inside a middle member: the members before it are delivered whole, then the
    /// error names the file. (zlib may hand out part of the damaged member before its check fails,
    /// as it always did; the stage fails either way.)
    @Test(arguments: [0.3, 0.5, 0.9])
    func damageInsideAMemberIsACorruptFileAfterTheMembersBeforeIt(position: Double) throws {
        let dir = TemporaryDirectory()
        let text = Array((0..<200_000).map { "record \($0)\n" }.joined().utf8)
        var file = try packed(text, chunkSize: 256 << 10, in: dir, name: "t.gz")
        file[Int(Double(file.count) * position)] ^= 0x55
        let path = dir.write("damaged.gz", bytes: file)
        var delivered: [UInt8] = []
        let error = #expect(throws: FileError.self) { try GzipReader(path: path).forEachChunk { delivered += $0 } }
        #expect(error?.exitStatus == .dataError)
        #expect(error?.description.hasPrefix(path) == true)
        // The text compresses evenly, so the members wholly before the damage hold at least this much.
        let before = max(0, Int(Double(text.count) * position) - (512 << 10))
        #expect(delivered.count >= before)
        #expect(delivered.prefix(before) == text.prefix(before))
    }

    /// Bytes after the last member are not gzip: everything before them, then a corrupt file.
    @Test func bytesAfterTheLastMemberAreACorruptFile() throws {
        let dir = TemporaryDirectory()
        let text = Array((0..<50_000).map { "record \($0)\n" }.joined().utf8)
        let path = dir.write("trailing.gz", bytes: try packed(text, chunkSize: 64 << 10, in: dir, name: "t.gz") + [0, 1, 2])
        var delivered: [UInt8] = []
        let error = #expect(throws: FileError.self) { try GzipReader(path: path).forEachChunk { delivered += $0 } }
        #expect(error?.exitStatus == .dataError)
        #expect(delivered == text)
    }
}
