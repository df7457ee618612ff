import Foundation
import ShelflineCore
import TestSupport
import TestTraits
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `shelfline export` through the built executables: every real export in `../shared/corpus` and
/// `examples/` imported, exported in its own format, imported again into an empty workspace, and
/// the two libraries compared field by field (the fields a format cannot carry are named below).
@Suite(.offCooperativePool) struct ExportEndToEndTests {
    /// `$SHELFLINE_CORPUS`, else `../shared/corpus` beside the repository (or two levels up from a worktree).
    static let corpus: String? = {
        var candidates = [
            ExecutableRunner.repositoryRoot + "/../shared/corpus", ExecutableRunner.repositoryRoot + "/../../shared/corpus",
        ]
        if let explicit = ProcessInfo.processInfo.environment["SHELFLINE_CORPUS"] { candidates.insert(explicit, at: 0) }
        let found = candidates.first { FileManager.default.fileExists(atPath: $0 + "/README.md") }
        if found == nil { print("SKIP corpus round trips: no ../shared/corpus beside \(ExecutableRunner.repositoryRoot)") }
        return found.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
    }()

    static let underCI = JSONSchemaCheck.underCI

    /// Fields each export format has no column for: docs/export.md's list (`ExportDocs`).
    static let notCarried: [String: Set<String>] = [
        "goodreads": try! ExportDocs.notCarried("goodreads"), "storygraph": try! ExportDocs.notCarried("storygraph"),
    ]

    struct Source: CustomTestStringConvertible, Sendable {
        var path: String
        /// The format written back: the source's own, or Goodreads' for a format Shelfline does not write.
        var exportFormat: String
        /// Further fields this source's round trip cannot keep, and why (beyond `notCarried`).
        var alsoLost: Set<String> = []
        var testDescription: String { (path as NSString).lastPathComponent }
    }

    static var sources: [Source] {
        var sources = [
            Source(path: ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv", exportFormat: "goodreads")
        ]
        guard let corpus else { return sources }
        sources += [
            Source(path: corpus + "/gr_24col_2025_bsanser.csv", exportFormat: "goodreads"),
            Source(path: corpus + "/gr_31col_html-reviews_genekaufman.csv", exportFormat: "goodreads"),
            Source(path: corpus + "/sg_crlf_quarter-stars_bsanser.csv", exportFormat: "storygraph"),
            Source(path: corpus + "/small/goodreads.csv", exportFormat: "goodreads"),
            Source(path: corpus + "/small/storygraph.csv", exportFormat: "storygraph"),
            // LibraryThing has no export Shelfline writes: its books go out as Goodreads rows, which
            // keep one date per reading (the finish; a start date is lost) and a copy count.
            Source(path: corpus + "/lt_tsv_mixed-encoding_turtleengr.tsv", exportFormat: "goodreads", alsoLost: ["reads"]),
            Source(path: corpus + "/small/librarything.tsv", exportFormat: "goodreads", alsoLost: ["reads"]),
        ]
        return sources
    }

    let temp = TemporaryDirectory("export-e2e")

    func config() throws -> String {
        try ConfigFile.shippedExample().write(to: temp.file("pipeline.json"))
    }

    /// Imports `csv` into `workspace`; the import must succeed.
    func importFile(_ csv: String, into workspace: String) throws {
        let result = try ExecutableRunner.run(
            "shelfline", ["run", "--csv", csv, "--workspace", workspace, "--config", try config(), "--quiet"])
        try #require(result.status == 0, "import of \(csv): \(result)")
    }

    func export(_ workspace: String, format: String, to output: String, extra: [String] = []) throws -> ProcessResult {
        try ExecutableRunner.run(
            "shelfline",
            [
                "export", "--format", format, "-o", output, "--workspace", workspace,
                "--config", try config(), "--quiet",
            ] + extra)
    }

    /// The library of `workspace`, book id → book (as JSON objects).
    static func library(_ workspace: String) throws -> [String: [String: Any]] {
        var books: [String: [String: Any]] = [:]
        try LineReader.forEachLine(path: workspace + "/library/library.ndjson.gz") { bytes, _ in
            let book = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            books[book["id"] as! String] = book
        }
        return books
    }

    /// What a Goodreads file keeps of two fields it carries only in part: a whole-star rating
    /// (half up), and the last finish date of the readings.
    static func asGoodreadsKeepsIt(_ book: [String: Any]) -> [String: Any] {
        var book = book
        if let rating = book["rating"] as? Double {
            book["rating"] = Double(max(1, min(5, Int(rating.rounded(.toNearestOrAwayFromZero)))))
        }
        if let reads = book["reads"] as? [[String: String]] {
            let last = reads.compactMap { $0["end"] }.max()
            book["reads"] = last.map { [["end": $0]] }
        }
        return book
    }

    /// Every difference between two libraries in the fields not `ignored`, one line each. Books are
    /// paired by id, else by a shared identity key: the id and keys are derived from the carried
    /// fields (an ISBN lookup found becomes the identity of the re-imported book, and which edition
    /// owns a shared title-author key depends on the order rows arrive), so they are not compared.
    static func differences(
        _ first: [String: [String: Any]], _ second: [String: [String: Any]], ignoring ignored: Set<String>,
        normalise: ([String: Any]) -> [String: Any] = { $0 }
    ) -> [String] {
        var found: [String] = []
        var unpaired = second
        var pairs: [([String: Any], [String: Any])] = []
        var leftover: [[String: Any]] = []
        for (id, book) in first.sorted(by: { $0.key < $1.key }) {
            if let other = unpaired.removeValue(forKey: id) { pairs.append((book, other)) } else { leftover.append(book) }
        }
        for book in leftover {
            let keys = Set(book["keys"] as? [String] ?? [])
            if let match = unpaired.first(where: { !keys.isDisjoint(with: $0.value["keys"] as? [String] ?? []) }) {
                unpaired.removeValue(forKey: match.key)
                pairs.append((book, match.value))
            } else {
                found.append("\(book["id"] ?? "") \(book["title"] ?? ""): only in the first library")
            }
        }
        found += unpaired.values.map { "\($0["id"] ?? "") \($0["title"] ?? ""): only in the second library" }
        for (a, b) in pairs {
            // An ISBN-10 is a function of a 978 ISBN-13: the parser derives it from the ISBN13 cell,
            // where lookup, filling an ISBN-13 from metadata, left it out. Compared through the ISBN-13.
            func withoutDerived(_ book: [String: Any]) -> [String: Any] {
                var book = normalise(book)
                if (book["isbn13"] as? String)?.hasPrefix("978") == true { book["isbn10"] = nil }
                return book
            }
            let a = withoutDerived(a), b = withoutDerived(b)
            for key in Set(a.keys).union(b.keys).sorted() where !ignored.union(["id", "keys"]).contains(key) {
                let left = a[key].map { NSArray(object: $0) }, right = b[key].map { NSArray(object: $0) }
                if left != right {
                    found.append(
                        "\(a["id"] ?? "") \(a["title"] ?? ""): \(key): \(a[key].map { "\($0)" } ?? "absent") → \(b[key].map { "\($0)" } ?? "absent")"
                    )
                }
            }
        }
        return found
    }

    @Test(.enabled(if: corpus != nil || !underCI, "needs ../shared/corpus under CI"), arguments: sources)
    func importExportImportKeepsEveryFieldTheFormatCarries(source: Source) throws {
        let first = temp.file("first"), second = temp.file("second"), exported = temp.file("exported.csv")
        try importFile(source.path, into: first)
        let result = try export(first, format: source.exportFormat, to: exported)
        try #require(result.status == 0, "\(result)")
        try importFile(exported, into: second)
        let a = try Self.library(first), b = try Self.library(second)
        #expect(a.count == b.count, "books: \(a.count) → \(b.count)")
        let ignored = Self.notCarried[source.exportFormat]!.union(source.alsoLost)
        let differences = Self.differences(
            a, b, ignoring: ignored,
            normalise: source.exportFormat == "goodreads" ? Self.asGoodreadsKeepsIt : { $0 })
        #expect(
            differences.isEmpty, "\(differences.count) differences, the first: \(differences.prefix(10).joined(separator: "\n"))")
    }

    /// The cells a Goodreads user wrote (or Goodreads wrote for them about their copy): the
    /// Goodreads export of a library imported from a Goodreads file gives each back as it was.
    static let userAuthored = [
        "Book Id", "My Rating", "Date Read", "Date Added", "Bookshelves", "Bookshelves with positions",
        "Exclusive Shelf", "My Review", "Spoiler", "Private Notes", "Read Count", "Owned Copies",
    ]

    @Test(
        .enabled(if: corpus != nil, "needs ../shared/corpus"),
        arguments: ["gr_24col_2025_bsanser.csv", "gr_31col_html-reviews_genekaufman.csv", "small/goodreads.csv"])
    func goodreadsExportGivesBackEveryUserAuthoredCellRowForRow(name: String) throws {
        let original = Self.corpus! + "/" + name
        let workspace = temp.file("ws"), exported = temp.file("goodreads.csv")
        try importFile(original, into: workspace)
        let result = try export(workspace, format: "goodreads", to: exported)
        try #require(result.status == 0, "\(result)")

        let source = try CSVTable(path: original), output = try CSVTable(path: exported)
        // The header, its order and its quoting are Goodreads' own, byte for byte.
        let reference = try CSVTable.firstLine(Self.corpus! + "/gr_24col_2025_bsanser.csv")
        #expect(try CSVTable.firstLine(exported) == reference)
        #expect(output.rows.count == source.rows.count, "one row per book")

        let exportedById = Dictionary(output.rows.map { (output.cell($0, "Book Id"), $0) }, uniquingKeysWith: { a, _ in a })
        var mismatches: [String] = []
        for row in source.rows {
            let id = source.cell(row, "Book Id")
            guard let back = exportedById[id] else { mismatches.append("Book Id \(id): no row"); continue }
            for column in Self.userAuthored where source.cell(row, column) != output.cell(back, column) {
                mismatches.append(
                    "Book Id \(id) \(column): \(source.cell(row, column).debugDescription) → \(output.cell(back, column).debugDescription)"
                )
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) cells differ: \(mismatches.prefix(10).joined(separator: "\n"))")
    }

    @Test(.enabled(if: corpus != nil, "needs ../shared/corpus"))
    func storyGraphThroughGoodreadsKeepsEverySharedField() throws {
        let first = temp.file("first"), second = temp.file("second"), exported = temp.file("goodreads.csv")
        try importFile(Self.corpus! + "/sg_crlf_quarter-stars_bsanser.csv", into: first)
        let result = try export(first, format: "goodreads", to: exported)
        try #require(result.status == 0, "\(result)")
        try importFile(exported, into: second)
        let a = try Self.library(first), b = try Self.library(second)
        // Goodreads rounds StoryGraph's quarter stars to whole ones, keeps one finish date per
        // book, and has no column for StoryGraph's own fields; a copy count is Goodreads' own
        // (StoryGraph has a yes/no, which `owned` keeps).
        let lost = Self.notCarried["goodreads"]!.union(["rating", "reads", "ownedCopies"])
        let differences = Self.differences(a, b, ignoring: lost)
        #expect(differences.isEmpty, "\(differences.count) differences: \(differences.prefix(10).joined(separator: "\n"))")
        for (id, book) in a {
            let rating = book["rating"] as? Double
            #expect(
                (b[id]?["rating"] as? Double) == rating.map { Double(max(1, min(5, Int($0.rounded(.toNearestOrAwayFromZero))))) },
                "\(id): rating \(rating ?? 0) rounds half up")
            let lastEnd = (book["reads"] as? [[String: String]])?.compactMap { $0["end"] }.max()
            let backEnd = (b[id]?["reads"] as? [[String: String]])?.compactMap { $0["end"] }.max()
            #expect(lastEnd == backEnd, "\(id): last finish date kept")
        }
    }

    @Test func exportWithoutLibraryExits66AndToStdoutWritesTheFile() throws {
        let workspace = temp.file("ws")
        let missing = try ExecutableRunner.run("shelfline", ["export", "--format", "goodreads", "--workspace", workspace])
        #expect(missing.status == 66, "\(missing)")
        #expect(
            missing.stderr.contains("no library yet") && missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")

        try importFile(ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv", into: workspace)
        let stdout = try ExecutableRunner.run(
            "shelfline",
            [
                "export", "--format", "goodreads", "--workspace", workspace,
                "--config", try config(),
            ])
        #expect(stdout.status == 0, "\(stdout)")
        let file = temp.file("out.csv")
        #expect(try export(workspace, format: "goodreads", to: file).status == 0)
        #expect(stdout.stdout == (try String(contentsOfFile: file, encoding: .utf8)))

        // --shelf keeps the books on that shelf only; ndjson copies library lines whole.
        let toRead = try ExecutableRunner.run(
            "shelfline",
            [
                "export", "--format", "ndjson", "--shelf", "to-read", "--workspace",
                workspace, "--config", try config(),
            ])
        let books = try Self.library(workspace).values
        let expected = books.filter {
            $0["shelf"] as? String == "to-read" || ($0["shelves"] as? [String] ?? []).contains("to-read")
        }
        #expect(toRead.stdout.split(separator: "\n").count == expected.count && !expected.isEmpty, "\(toRead)")

        // An output that is the library itself is refused (64), and the library is untouched.
        let before = try Data(contentsOf: URL(fileURLWithPath: workspace + "/library/library.ndjson.gz"))
        let clash = try export(workspace, format: "ndjson", to: workspace + "/library/library.ndjson.gz")
        #expect(clash.status == 64, "\(clash)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: workspace + "/library/library.ndjson.gz")) == before)
    }

    @Test func libraryCommandsShowWhatTheLibraryHolds() throws {
        let workspace = temp.file("ws")
        try importFile(ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv", into: workspace)
        func library(_ arguments: [String]) throws -> ProcessResult {
            try ExecutableRunner.run("shelfline", ["library"] + arguments + ["--workspace", workspace, "--config", try config()])
        }
        let books = try Self.library(workspace)

        // stats --json: counts the library's books per exclusive shelf and its readings per year.
        let stats = try library(["stats", "--json"])
        #expect(stats.status == 0, "\(stats)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        #expect(object["books"] as? Int == books.count)
        var shelves: [String: Int] = [:], years: [String: Int] = [:]
        for book in books.values {
            shelves[book["shelf"] as? String ?? "none", default: 0] += 1
            for read in book["reads"] as? [[String: String]] ?? [] {
                if let end = read["end"] { years[String(end.prefix(4)), default: 0] += 1 }
            }
        }
        #expect(object["exclusiveShelves"] as? [String: Int] == shelves)
        #expect(object["finishedPerYear"] as? [String: Int] == years)

        // list --shelf read: one line per book on the shelf; --json gives objects.
        let list = try library(["list", "--shelf", "read", "--json"])
        let listed = list.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(
            Set(listed.compactMap { $0["id"] as? String })
                == Set(books.values.filter { $0["shelf"] as? String == "read" }.map { $0["id"] as! String }))

        // show: by id the whole line (--json) and, as text, which import created the book.
        let dune = try #require(books.values.first { $0["title"] as? String == "Dune" })
        let id = dune["id"] as! String
        let shown = try library(["show", id, "--json"])
        #expect(
            NSDictionary(dictionary: try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as! [String: Any])
                == NSDictionary(dictionary: dune))
        let text = try library(["show", "dune"])
        #expect(text.status == 0 && text.stdout.contains("created the book") && text.stdout.contains("shelfPositions"), "\(text)")
        let ambiguous = try library(["show", "the"])
        #expect(ambiguous.status == 64 && ambiguous.stderr.split(separator: "\n").count == 1, "\(ambiguous)")

        // The import wrote the page, whose data holds one entry per library book with its id and
        // title (ids from the library file, not from the page's code), and its report links to it
        // (issue 42: the page only had to exist). The rows the script builds from this data are
        // checked in Chromium (LibraryPageScriptTests).
        let page = try String(contentsOfFile: workspace + "/library.html", encoding: .utf8)
        let opening = "<script type=\"application/json\" id=\"library-books\">"
        let data = try #require(
            page.components(separatedBy: opening).dropFirst().first?.components(separatedBy: "</script>").first)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [[Any]], "\(data)")
        let strings = entries.map { Set($0.compactMap { $0 as? String }) }
        #expect(entries.count == books.count, "\(entries.count) entries for \(books.count) books")
        for (id, book) in books {
            #expect(
                strings.filter { $0.contains(id) && $0.contains(book["title"] as! String) }.count == 1, "\(id) \(book["title"]!)")
        }
        let report = try String(contentsOfFile: workspace + "/runs/latest/report.html", encoding: .utf8)
        #expect(report.contains("href=\"../../library.html\""))
        // `library html` writes the same page again from the same library.
        try FileManager.default.removeItem(atPath: workspace + "/library.html")
        let html = try library(["html"])
        #expect(html.status == 0, "\(html)")
        #expect((try? String(contentsOfFile: workspace + "/library.html", encoding: .utf8)) == page)
    }

    @Test(.bug(id: 37)) func helpListsEveryFormatAndWhatItCannotCarry() throws {
        let help = try ExecutableRunner.run("shelfline", ["export", "--help"])
        #expect(help.status == 0)
        for format in ["goodreads:", "storygraph:", "ndjson:"] { #expect(help.stdout.contains(format), "\(help.stdout)") }
        // Words as the help wraps them to the terminal, joined by single spaces.
        let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("rounded half up") && words.contains("Average Rating"))
        // The fields a format has no column for, from codegen/fields.json's `notCarried`.
        #expect(words.contains("no column for `bcid`, `characterOrPlotDriven`"))
        #expect(words.contains("`shelfPositions`, `spoiler`, `year`."))
    }

    @Test func ndjsonExportValidatesAgainstTheLibraryBookSchema() throws {
        let workspace = temp.file("ws"), exported = temp.file("library.ndjson")
        try importFile(ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv", into: workspace)
        #expect(try export(workspace, format: "ndjson", to: exported).status == 0)
        let schema = ExecutableRunner.repositoryRoot + "/docs/library-book.schema.json"
        guard let violations = try JSONSchemaCheck.violations(ndjson: exported, schema: schema) else {
            #expect(!JSONSchemaCheck.underCI, "python3 has no jsonschema module: needed under CI")
            return
        }
        #expect(violations.isEmpty, "\(violations.prefix(20).joined(separator: "\n"))")
    }
}

/// `shelfline export`'s documented behaviour besides the formats (docs/export.md): the ndjson export
/// copies library lines whole, permissions, an unknown shelf, atomic output when killed, a reader
/// that goes away, and the exit statuses 65, 73 and 74.
@Suite(.offCooperativePool) struct ExportBehaviourEndToEndTests {
    let temp = TemporaryDirectory("export-behaviour")

    func config() throws -> String { try ConfigFile.shippedExample().write(to: temp.file("pipeline.json")) }

    func shelfline(_ arguments: [String], workspace: String) throws -> ProcessResult {
        try ExecutableRunner.run("shelfline", arguments + ["--workspace", workspace, "--config", try config()])
    }

    /// A workspace whose library holds `count` books (ids in order; shelves `read`, `to-read`, and
    /// tags `science fiction` and `fiction`), written directly as library lines.
    func workspace(books count: Int, name: String = "ws") throws -> String {
        let workspace = temp.file(name)
        try FileManager.default.createDirectory(atPath: workspace + "/library", withIntermediateDirectories: true)
        var text = ""
        for index in 1...count {
            let shelf = index % 3 == 0 ? "to-read" : "read"
            let tags = index % 2 == 0 ? #"["science fiction"]"# : #"["fiction"]"#
            text +=
                #"{"author":"Author \#(index % 97)","id":"\#(String(format: "b%016x", index))","keys":["t:book \#(index)"],"#
                + #""provenance":[{"fields":["created"],"format":"goodreads","importId":"i","lines":[\#(index + 1)]}],"#
                + #""shelf":"\#(shelf)","shelves":\#(tags),"title":"Book number \#(index) of a library long enough to take a while"}"#
                + "\n"
        }
        try GzipFixture.write(text: text, to: workspace + "/library/library.ndjson.gz")
        return workspace
    }

    /// The library's lines, as they are in the file.
    static func libraryLines(_ workspace: String) throws -> [String] {
        var lines: [String] = []
        try LineReader.forEachLine(path: workspace + "/library/library.ndjson.gz") { bytes, _ in
            if !bytes.isEmpty { lines.append(String(decoding: bytes, as: UTF8.self)) }
        }
        return lines
    }

    static func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test(.bug(id: 42)) func ndjsonExportIsTheLibrarysLinesFieldByField() throws {
        let workspace = temp.file("ws"), exported = temp.file("library.ndjson")
        let imported = try ExecutableRunner.run(
            "shelfline",
            [
                "run", "--csv", ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv",
                "--workspace", workspace, "--config", try config(), "--quiet",
            ])
        try #require(imported.status == 0, "\(imported)")
        let result = try shelfline(["export", "--format", "ndjson", "-o", exported, "--quiet"], workspace: workspace)
        try #require(result.status == 0, "\(result)")
        let library = try Self.libraryLines(workspace)
        let lines = try String(contentsOfFile: exported, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "", "the file ends with a line end")
        let written = lines.dropLast().map(String.init)
        try #require(written.count == library.count && library.count > 1, "\(written.count) lines, \(library.count) books")
        for (line, original) in zip(written, library) {
            let a = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let b = try #require(try JSONSerialization.jsonObject(with: Data(original.utf8)) as? [String: Any])
            #expect(Set(a.keys) == Set(b.keys), "\(b["id"] ?? "")")
            for key in b.keys {
                #expect(NSArray(object: a[key] ?? NSNull()) == NSArray(object: b[key]!), "\(b["id"] ?? "") \(key)")
            }
            #expect(line == original, "copied whole")
        }
        // With --shelf, the lines of the books on it, as they are.
        let toRead = try shelfline(["export", "--format", "ndjson", "--shelf", "to-read"], workspace: workspace)
        #expect(toRead.status == 0, "\(toRead)")
        let onShelf = library.filter { line in
            let book = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
            return book["shelf"] as? String == "to-read" || (book["shelves"] as? [String] ?? []).contains("to-read")
        }
        #expect(!onShelf.isEmpty && toRead.stdout == onShelf.map { $0 + "\n" }.joined())
    }

    @Test(.bug(id: 36)) func exportKeepsTheReplacedFilesModeAndCreatesNewFilesOwnerOnly() throws {
        let workspace = try workspace(books: 3)
        let umask = Glibc.umask(0o022)
        defer { Glibc.umask(umask) }
        for (before, after) in [(0o600, 0o600), (0o640, 0o640), (0o644, 0o644)] {
            let output = temp.file("existing-\(String(before, radix: 8)).csv")
            _ = FileManager.default.createFile(
                atPath: output, contents: Data("old\n".utf8), attributes: [.posixPermissions: before])
            let result = try shelfline(["export", "--format", "goodreads", "-o", output, "--quiet"], workspace: workspace)
            #expect(result.status == 0, "\(result)")
            let mode = try Self.mode(output)
            #expect(mode == after, "over a \(String(before, radix: 8)) file: \(String(mode, radix: 8))")
            #expect(try String(contentsOfFile: output, encoding: .utf8).hasPrefix("Book Id,"))
        }
        let new = temp.file("new.csv")
        #expect(try shelfline(["export", "--format", "goodreads", "-o", new, "--quiet"], workspace: workspace).status == 0)
        #expect(try Self.mode(new) == 0o600, "a new export is owner-only")
        let asked = temp.file("asked.csv")
        #expect(
            try shelfline(["export", "--format", "goodreads", "-o", asked, "--mode", "644", "--quiet"], workspace: workspace)
                .status == 0)
        #expect(try Self.mode(asked) == 0o644, "--mode 644")
        let bad = try shelfline(["export", "--format", "goodreads", "-o", asked, "--mode", "rw-r--r--"], workspace: workspace)
        #expect(bad.status == 64 && bad.stderr.contains("--mode"), "\(bad)")
        let noFile = try shelfline(["export", "--format", "goodreads", "--mode", "600"], workspace: workspace)
        #expect(noFile.status == 64 && noFile.stdout.isEmpty && noFile.stderr.contains("--mode"), "\(noFile)")
    }

    @Test(.bug(id: 36)) func aShelfNoBookIsOnExits64NamingTheLibrarysShelves() throws {
        let workspace = try workspace(books: 6)
        let output = temp.file("out.csv")
        try Data("previous\n".utf8).write(to: URL(fileURLWithPath: output))
        for extra in [["--shelf", "scifi"], ["--shelf", "read", "--shelf", "scifi"]] {
            for target in [["-o", output], []] {
                let result = try shelfline(["export", "--format", "goodreads"] + extra + target, workspace: workspace)
                #expect(result.status == 64, "\(extra) \(target): \(result)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
                #expect(
                    result.stderr.contains("'scifi'") && result.stderr.contains("fiction, read, science fiction, to-read"),
                    "\(result.stderr)")
                if target.isEmpty && extra.count == 2 { continue }  // the read shelf's rows may be out already
                #expect(result.stdout.isEmpty, "nothing written: \(result.stdout)")
            }
        }
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "previous\n", "the output is untouched")
        let list = try shelfline(["library", "list", "--shelf", "scifi"], workspace: workspace)
        #expect(list.status == 64 && list.stderr.contains("'scifi'"), "\(list)")
        // A shelf that exists, even one with a space, exits 0 with its books.
        let known = try shelfline(["export", "--format", "ndjson", "--shelf", "science fiction"], workspace: workspace)
        #expect(known.status == 0 && known.stdout.split(separator: "\n").count == 3, "\(known)")
        // A reading state no book is on is a shelf every library has: an empty export, status 0.
        let empty = try shelfline(["export", "--format", "goodreads", "--shelf", "currently-reading"], workspace: workspace)
        #expect(empty.status == 0 && empty.stderr.isEmpty && empty.stdout.split(separator: "\n").count == 1, "\(empty)")
    }

    @Test(.bug(id: 42)) func killedExportLeavesThePreviousFileIntact() throws {
        let workspace = try workspace(books: 150_000)
        let directory = temp.file("out")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let output = directory + "/export.csv"
        try Data("the previous export\n".utf8).write(to: URL(fileURLWithPath: output))
        let process = ExecutableRunner.start(
            "shelfline",
            [
                "export", "--format", "goodreads", "-o", output, "--workspace", workspace,
                "--config", try config(),
            ])
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Killed once the export has written part of its temporary file: mid-export.
        func temporaryBytes() -> Int {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            return names.filter { $0.hasPrefix(".export.csv.tmp-") }
                .compactMap { (try? FileManager.default.attributesOfItem(atPath: directory + "/" + $0))?[.size] as? Int }.max()
                ?? 0
        }
        let started = waitUntil(timeout: 120, watching: [directory]) { temporaryBytes() > 0 || !process.isRunning }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try #require(
            started && process.terminationReason == .uncaughtSignal,
            "the export finished before it could be killed mid-way: give it a larger library")
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "the previous export\n")
        // The next export replaces it, and removes the killed one's temporary file.
        let again = try shelfline(
            ["export", "--format", "goodreads", "--shelf", "to-read", "-o", output, "--quiet"], workspace: workspace)
        #expect(again.status == 0, "\(again)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["export.csv"])
        #expect(try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").count == 1 + 50_000)
    }

    @Test(.bug(id: 42)) func aReaderThatGoesAwayEndsTheExportQuietlyWithStatus0() throws {
        let workspace = try workspace(books: 20_000)
        let process = ExecutableRunner.start(
            "shelfline", ["export", "--format", "ndjson", "--workspace", workspace, "--config", try config()])
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // `| head -1`: one line read, then the pipe closed with megabytes still to come.
        let first = out.fileHandleForReading.readData(ofLength: 200)
        try out.fileHandleForReading.close()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(String(decoding: first, as: UTF8.self).hasPrefix("{\"author\""))
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "status \(process.terminationStatus)")
        #expect(stderr.isEmpty, "\(String(decoding: stderr, as: UTF8.self))")
    }

    @Test(.bug(id: 42)) func exitStatusesForACorruptLibraryAnUncreatableOutputAndAnIOError() throws {
        // 65: a library line that is not a book, named; the output untouched.
        let corrupt = try workspace(books: 3, name: "corrupt")
        var lines = try Self.libraryLines(corrupt)
        lines[1] = "{not json"
        try GzipFixture.write(text: lines.joined(separator: "\n") + "\n", to: corrupt + "/library/library.ndjson.gz")
        let output = temp.file("kept.csv")
        try Data("kept\n".utf8).write(to: URL(fileURLWithPath: output))
        let bad = try shelfline(["export", "--format", "goodreads", "-o", output], workspace: corrupt)
        #expect(
            bad.status == 65 && bad.stderr.contains("library.ndjson.gz:2:") && bad.stderr.split(separator: "\n").count == 1,
            "\(bad)")
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "kept\n")

        // 73: an output in a directory that does not exist.
        let workspace = try workspace(books: 3)
        let missing = try shelfline(
            ["export", "--format", "goodreads", "-o", temp.file("no/such/dir/out.csv")], workspace: workspace)
        #expect(missing.status == 73 && missing.stderr.split(separator: "\n").count == 1, "\(missing)")

        // 74: standard output on a full device.
        let process = ExecutableRunner.start(
            "shelfline", ["export", "--format", "goodreads", "--workspace", workspace, "--config", try config()])
        process.standardOutput = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let err = Pipe()
        process.standardError = err
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(
            process.terminationStatus == 74 && stderr.split(separator: "\n").count == 1, "\(process.terminationStatus): \(stderr)"
        )
    }
}

/// A CSV file read by RFC 4180 rules, for comparing cells.
struct CSVTable {
    var header: [String]
    var rows: [[String]]

    init(path: String) throws {
        let scalars = Array(try String(contentsOfFile: path, encoding: .utf8).unicodeScalars)
        var records: [[String]] = [], record: [String] = [], cell = String.UnicodeScalarView(), quoted = false
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            if quoted {
                if scalar != "\"" {
                    cell.append(scalar)
                } else if index < scalars.count && scalars[index] == "\"" {
                    cell.append("\"")
                    index += 1
                } else {
                    quoted = false
                }
                continue
            }
            switch scalar {
            case "\"": quoted = true
            case ",": record.append(String(cell)); cell = String.UnicodeScalarView()
            case "\r": break
            case "\n":
                record.append(String(cell)); cell = String.UnicodeScalarView()
                records.append(record); record = []
            default: cell.append(scalar)
            }
        }
        if !cell.isEmpty || !record.isEmpty { record.append(String(cell)); records.append(record) }
        header = records.first ?? []
        rows = Array(records.dropFirst())
    }

    func cell(_ row: [String], _ column: String) -> String {
        guard let index = header.firstIndex(of: column), index < row.count else { return "" }
        return row[index]
    }

    static func firstLine(_ path: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let end = data.firstIndex(of: 0x0A) ?? data.endIndex
        return String(decoding: data[..<end], as: UTF8.self)
    }
}
