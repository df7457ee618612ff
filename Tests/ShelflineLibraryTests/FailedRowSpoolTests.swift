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

    @Test(.bug(id: 12)) func aDamagedSpoolLineIsAnErrorNamingIt() throws {
        let directory = TemporaryDirectory("failed-row-spool-damaged")
        let path = directory.write("spool", "[2,0,10,\"\",\"r\",\"t\"]\n[3,0,\n")
        let spool = try FailedRowSpool(path: directory.file("other"))
        try spool.close()
        #expect(throws: FileError.self) {
            try FailedRowSpool.readBack(path: path) { _ in }
        }
    }
}
