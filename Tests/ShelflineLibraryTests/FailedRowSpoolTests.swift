import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineLibrary

/// Merge spools not-enriched rows to a scratch file instead of holding them (issue 12: bounded memory).
@Suite struct FailedRowSpoolTests {
    @Test(.bug(id: 12)) func spooledRowsReadBackExactlyInOrder() throws {
        let directory = TemporaryDirectory("failed-row-spool")
        let spool = try FailedRowSpool(path: directory.file("spool"))
        let hostile = ["tab\there", "line\nbreak\r\n", "quote \" and \\ backslash", "emoji 📚 and é", "", "]\"],[", "\u{0}\u{1F}"]
        var rows: [FailedRow] = []
        for (index, text) in hostile.enumerated() {
            rows.append(
                FailedRow(
                    line: index + 2, byteOffset: index * 100, byteLength: 99, reason: "reason \(text)",
                    fallbackText: text, bookId: index.isMultiple(of: 2) ? UInt64.max - UInt64(index) : nil))
        }
        for _ in 0..<2_000 { rows.append(rows[rows.count % hostile.count]) }  // several flushes' worth
        for row in rows { try spool.append(row) }
        try spool.close()
        var back: [FailedRow] = []
        try spool.forEach { back.append($0) }
        #expect(back == rows)
    }

    @Test func theExportReadsOnlyTheNumbersUnlessItAsksForTheWords() throws {
        let directory = TemporaryDirectory("failed-row-spool-numbers")
        let spool = try FailedRowSpool(path: directory.file("spool"))
        let row = FailedRow(line: 7, byteOffset: 1 << 40, byteLength: 12, reason: "no match", fallbackText: "t | a", bookId: 42)
        try spool.append(row)
        try spool.close()
        var numbers: [FailedRow] = []
        try spool.forEach(texts: false) { numbers.append($0) }
        #expect(numbers == [FailedRow(line: 7, byteOffset: 1 << 40, byteLength: 12, reason: "", fallbackText: "", bookId: 42)])
        var whole: [FailedRow] = []
        try spool.forEach(texts: true) { whole.append($0) }
        #expect(whole == [row])
    }

    @Test(.bug(id: 12)) func aDamagedSpoolIsAnErrorNamingIt() throws {
        let directory = TemporaryDirectory("failed-row-spool-damaged")
        let spool = try FailedRowSpool(path: directory.file("spool"))
        for line in 2...3 {
            try spool.append(FailedRow(line: line, byteOffset: 0, byteLength: 10, reason: "r", fallbackText: "t", bookId: nil))
        }
        try spool.close()
        // The words' file: a line cut short, then one row's words missing.
        try Data("[\"r\",\"t\"]\n[\"r\",".utf8).write(to: URL(fileURLWithPath: spool.path + ".texts"))
        #expect(throws: FileError.corrupt(path: spool.path + ".texts", line: 2, reason: "scratch row is damaged")) {
            try spool.forEach { _ in }
        }
        try Data("[\"r\",\"t\"]\n".utf8).write(to: URL(fileURLWithPath: spool.path + ".texts"))
        #expect(throws: FileError.corrupt(path: spool.path + ".texts", line: 2, reason: "scratch rows are missing")) {
            try spool.forEach { _ in }
        }
        // The numbers' file cut inside its second row.
        let numbers = try Data(contentsOf: URL(fileURLWithPath: spool.path))
        try numbers.prefix(numbers.count - 3).write(to: URL(fileURLWithPath: spool.path))
        #expect(throws: FileError.corrupt(path: spool.path, line: 2, reason: "scratch row is damaged")) {
            try spool.forEach(texts: false) { _ in }
        }
    }
}
