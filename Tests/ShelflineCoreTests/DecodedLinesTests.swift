import Foundation
import ShelflineCore
import Testing
import TestSupport

/// `DecodedLines` decodes a file's lines on two threads: the caller still gets every line once, in
/// file order, with its own bytes and number, and a refused line's error after every line before it.
@Suite struct DecodedLinesTests {
    struct Refused: Error, Equatable { var line: Int }

    /// Lines of varied length (some far longer than a batch), with empty lines between some.
    static func lines(_ count: Int) -> [String] {
        (1...count).map { index in
            index % 97 == 0 ? "" : "\(index):" + String(repeating: "x", count: (index * 7919) % (index % 500 == 0 ? 9_000 : 300))
        }
    }

    @Test(arguments: [false, true])
    func everyLineArrivesOnceInFileOrderWithItsBytesAndNumber(gzip: Bool) throws {
        let directory = TemporaryDirectory("decoded-lines")
        let lines = Self.lines(5_000)
        let text = lines.joined(separator: "\n") + "\n"
        let path = gzip ? try GzipFixture.write(text: text, to: directory.file("lines.gz"), chunkSize: 10_000)
                        : directory.write("lines.txt", text)
        var seen: [Int] = []
        // Batches of ~4 KiB: hundreds of hand-overs, and lines longer than a batch.
        try DecodedLines.forEach(path: path, batchBytes: 4_096, decode: { bytes, number in
            (Int(String(decoding: bytes.prefix { $0 != UInt8(ascii: ":") }, as: UTF8.self)), number, bytes.count)
        }) { decoded, bytes, number in
            #expect(decoded.0 == number && decoded.1 == number)
            #expect(decoded.2 == bytes.count)
            #expect(String(decoding: bytes, as: UTF8.self) == lines[number - 1])
            seen.append(number)
        }
        #expect(seen == (1...lines.count).filter { !lines[$0 - 1].isEmpty })
    }

    @Test func aRefusedLineThrowsAfterEveryLineBeforeIt() throws {
        let directory = TemporaryDirectory("decoded-lines-refused")
        let lines = Self.lines(3_000)
        let path = try GzipFixture.write(text: lines.joined(separator: "\n"), to: directory.file("lines.gz"))
        var seen: [Int] = []
        #expect(throws: Refused(line: 2_345)) {
            try DecodedLines.forEach(path: path, batchBytes: 2_048, decode: { _, number in
                if number == 2_345 { throw Refused(line: number) }
                return number
            }) { decoded, _, _ in
                seen.append(decoded)
            }
        }
        #expect(seen == (1..<2_345).filter { !lines[$0 - 1].isEmpty })
    }

    @Test func theCallersErrorStopsTheReadingThreads() throws {
        let directory = TemporaryDirectory("decoded-lines-stop")
        let path = try GzipFixture.write(text: Self.lines(20_000).joined(separator: "\n"), to: directory.file("lines.gz"))
        var calls = 0
        #expect(throws: Refused(line: 10)) {
            try DecodedLines.forEach(path: path, batchBytes: 1_024, decode: { _, number in number }) { number, _, _ in
                calls += 1
                if number == 10 { throw Refused(line: number) }
            }
        }
        #expect(calls == 10)
        // The file is closed once `forEach` returns: it can be removed and the directory with it.
        try FileManager.default.removeItem(atPath: path)
    }

    @Test func aCorruptGzipIsTheReadersErrorAfterTheLinesBeforeIt() throws {
        let directory = TemporaryDirectory("decoded-lines-corrupt")
        let lines = Self.lines(4_000)
        let good = try GzipFixture.write(text: lines.joined(separator: "\n") + "\n", to: directory.file("good.gz"), chunkSize: 50_000)
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: good)))
        bytes.removeLast(bytes.count / 3)
        let cut = directory.file("cut.gz")
        try Data(bytes).write(to: URL(fileURLWithPath: cut))
        var seen: [Int] = []
        #expect {
            try DecodedLines.forEach(path: cut, decode: { _, number in number }) { number, _, _ in seen.append(number) }
        } throws: { error in
            guard case FileError.corrupt = error else { return false }
            return true
        }
        #expect(!seen.isEmpty && seen == Array(seen.sorted()) && seen.last! < lines.count)
    }
}
