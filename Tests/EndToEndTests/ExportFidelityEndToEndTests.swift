import Foundation
import TestSupport
import TestTraits
import Testing

/// Our export gives back the cells the reader's export wrote, and export → import → export gives
/// the same file, through the built executables (docs/export.md).
@Suite(.offCooperativePool) struct ExportFidelityEndToEndTests {
    let temp = TemporaryDirectory("export-fidelity")
    static let corpus = ExportEndToEndTests.corpus
    static let examples = ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv"

    func config() throws -> String {
        try ConfigFile.shippedExample().write(to: temp.file("pipeline.json"))
    }

    func run(_ arguments: [String]) throws -> ProcessResult {
        try ExecutableRunner.run("shelfline", arguments + ["--config", try config(), "--quiet"])
    }

    /// Imports `csv` into a new workspace `name` and exports it as `format` to `name.csv`; returns the export's path.
    func importAndExport(_ csv: String, as format: String, name: String) throws -> String {
        let workspace = temp.file(name), output = temp.file(name + ".csv")
        let imported = try run(["run", "--csv", csv, "--workspace", workspace])
        try #require(imported.status == 0, "import of \(csv): \(imported)")
        let exported = try run(["export", "--format", format, "-o", output, "--workspace", workspace])
        try #require(exported.status == 0, "\(exported)")
        return output
    }

    static var goodreadsFiles: [String] {
        [examples]
            + (corpus.map { corpus in
                ["gr_24col_2025_bsanser.csv", "gr_31col_html-reviews_genekaufman.csv", "small/goodreads.csv"].map {
                    corpus + "/" + $0
                }
            } ?? [])
    }

    /// Every file and the format it is exported in (LibraryThing's as Goodreads').
    static var allFiles: [[String]] {
        goodreadsFiles.map { [$0, "goodreads"] }
            + (corpus.map { corpus in
                [
                    ["sg_crlf_quarter-stars_bsanser.csv", "storygraph"], ["small/storygraph.csv", "storygraph"],
                    ["lt_tsv_mixed-encoding_turtleengr.tsv", "goodreads"], ["small/librarything.tsv", "goodreads"],
                ]
                .map { [corpus + "/" + $0[0], $0[1]] }
            } ?? [])
    }

    /// Where an exported cell may differ from the original's (docs/export.md): `Average Rating` is
    /// Goodreads' readers', runs of spaces in names are one space, a `0` page count is none, and
    /// lookup (or the ISBN-13) fills a cell the reader left empty.
    static func allowed(column: String, original: String, exported: String) -> Bool {
        // `Author l-f` is Goodreads' from its author records (`Le Guin, Ursula K.`); ours is the
        // last word first. Cells are read with their edges trimmed.
        if column == "Average Rating" || column == "Author l-f" { return true }
        if original.trimmingCharacters(in: .whitespaces) == exported { return true }
        func collapsed(_ text: String) -> String {
            text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        }
        if ["Author", "Author l-f", "Additional Authors"].contains(column), collapsed(original) == collapsed(exported) {
            return true
        }
        if column == "Number of Pages", original == "0", exported.isEmpty { return true }
        // An ISBN-10 and ISBN-13 of one edition: each derived from the other when its cell was empty.
        let filled = ["Publisher", "Number of Pages", "Year Published", "ISBN", "ISBN13"]
        return filled.contains(column) && (original.isEmpty || original == "=\"\"")
    }

    /// Real Goodreads exports (the example file is hand-made: fractional ratings, a book listed twice).
    @Test(.bug(id: 38), .enabled(if: corpus != nil, "needs ../shared/corpus"), arguments: goodreadsFiles.dropFirst())
    func goodreadsExportGivesBackEveryCellAsWritten(path: String) throws {
        let exported = try importAndExport(path, as: "goodreads", name: "ws")
        let source = try CSVTable(path: path), output = try CSVTable(path: exported)
        #expect(output.rows.count == source.rows.count, "one row per book")
        let byId = Dictionary(output.rows.map { (output.cell($0, "Book Id"), $0) }, uniquingKeysWith: { a, _ in a })
        var differences: [String] = []
        for row in source.rows {
            let id = source.cell(row, "Book Id")
            guard let back = byId[id] else { differences.append("Book Id \(id): no row"); continue }
            for column in source.header where output.header.contains(column) {
                let original = source.cell(row, column), written = output.cell(back, column)
                if original != written && !Self.allowed(column: column, original: original, exported: written) {
                    differences.append("Book Id \(id) \(column): \(original.debugDescription) → \(written.debugDescription)")
                }
            }
        }
        #expect(differences.isEmpty, "\(differences.count) cells differ: \(differences.prefix(10).joined(separator: "\n"))")
    }

    @Test(
        .bug(id: 38), .bug(id: 36), .enabled(if: corpus != nil || !JSONSchemaCheck.underCI, "needs ../shared/corpus under CI"),
        arguments: allFiles)
    func exportImportExportIsByteIdentical(file: [String]) throws {
        let first = try importAndExport(file[0], as: file[1], name: "first")
        let second = try importAndExport(first, as: file[1], name: "second")
        let a = try Data(contentsOf: URL(fileURLWithPath: first)), b = try Data(contentsOf: URL(fileURLWithPath: second))
        if a != b {
            let left = String(decoding: a, as: UTF8.self).split(separator: "\n"),
                right = String(decoding: b, as: UTF8.self).split(separator: "\n")
            let differing = zip(left, right).filter { $0 != $1 }.prefix(3).map { "\($0)\n→ \($1)" }
            Issue.record(
                "\(file[0]): second export differs in \(zip(left, right).count(where: { $0 != $1 })) lines: \(differing.joined(separator: "\n"))"
            )
        }
    }

    /// Issue 38's rows: a series marker without a comma, an ISBN whose check digit fails beside an
    /// empty ISBN-13, a 13-digit cell that fails, another edition's ISBN-10 beside the ISBN-13; a
    /// bare title and a subtitled one with two ids (two books); one title with and without its
    /// series marker under two ids (two editions: one book).
    @Test(.bug(id: 38)) func issue38RowsComeBackAsWrittenAndTwoEntriesStayTwoBooks() throws {
        let header = try CSVTable.firstLine(Self.examples)
        let rows = [
            #"101,QualityLand (QualityLand #1),Marc-Uwe Kling,"Kling, Marc-Uwe",,"=""0152061548""","=""""",4,,,,,,,,2024/01/02,read,read (#1),read,,,,1,0"#,
            #"102,The Illustrated Man,Ray Bradbury,"Bradbury, Ray",,"=""""","=""0553105574175""",0,,,,,,,,2024/01/03,to-read,to-read (#2),to-read,,,,0,0"#,
            #"103,Amped,Daniel H. Wilson,"Wilson, Daniel H.",,"=""0385535151""","=""9780385535151""",0,,,,,,,,2024/01/04,to-read,to-read (#3),to-read,,,,0,0"#,
            #"104,Guns of the Dawn,Adrian Tchaikovsky,"Tchaikovsky, Adrian",,"=""1447272676""","=""9780230770034""",0,,,,,,,,2024/01/05,to-read,to-read (#4),to-read,,,,0,0"#,
            #"105,Boarderlines,Jan Witte,"Witte, Jan",,"=""0306406152""","=""9780306406157""",3,,,,,,,,2024/01/06,read,read (#5),read,,,,1,0"#,
            #"106,Boarderlines - Fuck You Happiness,Jan Witte,"Witte, Jan",,"=""""","=""""",5,,,,,,,,2024/01/07,read,read (#6),read,,,,1,0"#,
            #"107,Dune (Dune Chronicles #1),Frank Herbert,"Herbert, Frank",,"=""""","=""""",5,,,,,,,,2024/01/08,read,read (#7),read,,,,1,0"#,
            #"108,Dune,Frank Herbert,"Herbert, Frank",,"=""""","=""""",4,,,,,,,,2024/01/09,read,read (#8),read,,,,1,0"#,
        ]
        let csv = temp.file("issue38.csv")
        try (([header] + rows).joined(separator: "\n") + "\n").write(toFile: csv, atomically: true, encoding: .utf8)
        let exported = try importAndExport(csv, as: "goodreads", name: "ws")
        let output = try CSVTable(path: exported)
        let byId = Dictionary(output.rows.map { (output.cell($0, "Book Id"), $0) }, uniquingKeysWith: { a, _ in a })
        func cells(_ id: String) -> [String] {
            guard let row = byId[id] else { return ["no row"] }
            return ["Title", "ISBN", "ISBN13"].map { output.cell(row, $0) }
        }
        #expect(cells("101") == ["QualityLand (QualityLand #1)", "=\"0152061548\"", "=\"\""])
        #expect(cells("102") == ["The Illustrated Man", "=\"\"", "=\"0553105574175\""])
        #expect(cells("103") == ["Amped", "=\"0385535151\"", "=\"9780385535151\""])
        #expect(cells("104") == ["Guns of the Dawn", "=\"1447272676\"", "=\"9780230770034\""])
        // Two entries with two titles: two books. One title under two ids: one book (the first id).
        #expect(cells("105") == ["Boarderlines", "=\"0306406152\"", "=\"9780306406157\""])
        #expect(cells("106") == ["Boarderlines - Fuck You Happiness", "=\"\"", "=\"\""])
        #expect(output.rows.count == 7, "books: \(output.rows.map { output.cell($0, "Title") })")
        #expect(cells("107").first == "Dune (Dune Chronicles #1)")
    }
}
