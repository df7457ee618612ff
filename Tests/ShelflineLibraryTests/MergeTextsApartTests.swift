import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import Testing

@testable import ShelflineLibrary

#if canImport(Glibc)
    import Glibc
#endif

/// Merge joins the reviews and notes parse wrote apart (`RecordTexts`) back into their records,
/// and refuses texts that are not the ones written with the records (issue 25).
@Suite struct MergeTextsApartTests {
    let temp = TemporaryDirectory("texts-apart")

    /// Rows with and without texts: every third without either, some with notes only.
    static func rows(_ count: Int) -> [ImportFixture.Row] {
        (0..<count).map { index in
            var record = rec(
                "Book \(index)", by: "Author \(index % 97)", isbn13: nil, shelf: "read",
                review: index % 3 == 0
                    ? nil : "Review \(index): \"quoted\"\nline two <br/> " + String(repeating: "ü", count: index % 300))
            if index % 5 == 0 { record.notes = "note \(index)\ttabbed" }
            return row(record, id: index + 1)
        }
    }

    func merge(_ fixture: ImportFixture, into workspace: Workspace) throws -> MergeReport {
        try MergeStage.run(fixture.request(), workspace: workspace)
    }

    func library(_ workspace: Workspace) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try GzipReader(path: workspace.libraryFile).forEachLine { line, _ in bytes += Array(line) + [0x0A] }
        return bytes
    }

    @Test(.bug(id: 25)) func textsWrittenApartMakeTheSameLibraryAsTextsInTheRecords() throws {
        // 3,000 rows: the texts span several of the reader's batches.
        let rows = Self.rows(3000)
        let inline = try ImportFixture(directory: temp.file("inline"), rows: rows)
        let apart = try ImportFixture(directory: temp.file("apart"), rows: rows, textsApart: true)
        let inlineWorkspace = Workspace(root: temp.file("ws-inline")), apartWorkspace = Workspace(root: temp.file("ws-apart"))
        let inlineReport = try merge(inline, into: inlineWorkspace)
        let apartReport = try merge(apart, into: apartWorkspace)
        #expect(apartReport.outcomes == inlineReport.outcomes && apartReport.libraryBooks == 3000)
        #expect(try library(apartWorkspace) == library(inlineWorkspace))
        let books = try libraryBooks(apartWorkspace)
        #expect(books.filter { $0.review != nil }.count == 2000)
        #expect(books.filter { $0.notes != nil }.count == 600)
        let book = try #require(books.first { $0.title == "Book 5" })
        #expect(
            book.review == "Review 5: \"quoted\"\nline two <br/> " + String(repeating: "ü", count: 5)
                && book.notes == "note 5\ttabbed")
        // The scratch records carried the texts: none is left marked apart.
        #expect(!String(decoding: try library(apartWorkspace), as: UTF8.self).contains("textsApart"))
    }

    /// Runs merge on `fixture` after `damage`, expecting `status`, a message containing `message`, no library.
    func refused(
        _ damage: (ImportFixture) throws -> Void, status: ShelflineCore.ExitStatus, message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let fixture = try ImportFixture(directory: temp.file("run-\(UUID().uuidString)"), rows: Self.rows(40), textsApart: true)
        try damage(fixture)
        let workspace = Workspace(root: temp.file("ws-\(UUID().uuidString)"))
        do {
            _ = try merge(fixture, into: workspace)
            Issue.record("merge accepted it", sourceLocation: sourceLocation)
        } catch let error as ShelflineError {
            #expect(error.exitStatus == status, "\(error)", sourceLocation: sourceLocation)
            #expect("\(error)".contains(message), "\(error)", sourceLocation: sourceLocation)
            #expect(!"\(error)".contains("\n"), sourceLocation: sourceLocation)
        }
        #expect(!FileManager.default.fileExists(atPath: workspace.libraryFile), sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: fixture.directory + "/merge-report.json"), sourceLocation: sourceLocation)
    }

    /// Rewrites the texts file as `lines`, and the report's hash and count with it (a parse that wrote them).
    static func rewriteTexts(_ fixture: ImportFixture, _ lines: [String]) throws {
        _ = try GzipFixture.write(text: lines.map { $0 + "\n" }.joined(), to: fixture.texts)
        var report = try readJSONFile(ParseReport.self, from: fixture.parseReport)
        report.texts = RecordTexts.Reference(
            file: RecordTexts.fileName, sha256: try ContentHash.file(fixture.texts), lines: lines.count)
        try writeJSONFile(report, to: fixture.parseReport)
    }

    static func textsLines(_ fixture: ImportFixture) throws -> [String] {
        var lines: [String] = []
        try GzipReader(path: fixture.texts).forEachLine { bytes, _ in lines.append(String(decoding: bytes, as: UTF8.self)) }
        return lines
    }

    @Test(.bug(id: 25)) func aMissingTextsFileIs66NamingIt() throws {
        try refused({ try FileManager.default.removeItem(atPath: $0.texts) }, status: .noInput, message: "texts.ndjson.gz")
    }

    @Test(.bug(id: 25)) func aTextsFileThatIsAFIFOIsRefusedNotWaitedOn() throws {
        try refused(
            { fixture in
                try FileManager.default.removeItem(atPath: fixture.texts)
                #expect(mkfifo(fixture.texts, 0o600) == 0)
            }, status: .noInput, message: "not a regular file")
    }

    @Test(.bug(id: 25)) func textsChangedSinceParseAreRefused() throws {
        try refused(
            { fixture in
                // Another parse's texts, same shape: the hash tells them apart.
                let lines = try Self.textsLines(fixture).map { $0.replacingOccurrences(of: "Review", with: "Other review") }
                _ = try GzipFixture.write(text: lines.map { $0 + "\n" }.joined(), to: fixture.texts)
            }, status: .dataError, message: "changed since parse")
    }

    @Test(.bug(id: 25)) func aMarkedRecordWhoseTextsAreMissingIsRefused() throws {
        try refused(
            { fixture in
                var lines = try Self.textsLines(fixture)
                lines.remove(at: 3)
                try Self.rewriteTexts(fixture, lines)
            }, status: .dataError, message: "different parses or out of order")
        try refused(
            { fixture in
                try Self.rewriteTexts(fixture, Array(try Self.textsLines(fixture).dropLast()))
            }, status: .dataError, message: "ends before them")
    }

    @Test(.bug(id: 25)) func textsNoRecordHasApartAreRefused() throws {
        try refused(
            { fixture in
                try Self.rewriteTexts(fixture, try Self.textsLines(fixture) + [#"{"line":9999,"review":"stray"}"#])
            }, status: .dataError, message: "which no record")
    }

    @Test(.bug(id: 25)) func aTextsLineCanSetNoOtherField() throws {
        try refused(
            { fixture in
                var lines = try Self.textsLines(fixture)
                // Source line 2 is the first row, which has notes only.
                #expect(lines[0].hasPrefix(#"{"line":2,"notes":"#))
                lines[0] = #"{"line":2,"notes":"n","title":"Another book"}"#
                try Self.rewriteTexts(fixture, lines)
            }, status: .dataError, message: "not a texts line")
    }

    @Test(.bug(id: 25)) func recordsMarkedApartNeedAReportNamingTheirTexts() throws {
        try refused(
            { fixture in
                var report = try readJSONFile(ParseReport.self, from: fixture.parseReport)
                report.texts = nil
                try writeJSONFile(report, to: fixture.parseReport)
            }, status: .dataError, message: "names no texts file")
    }
}
