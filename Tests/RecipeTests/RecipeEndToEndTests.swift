import Foundation
import ShelflineCore
import ShelflineLibrary
import ShelflineLookup
import ShelflineRender
import ShelflineReports
import TestSupport
import Testing

@testable import ShelflineParse

/// docs/ARCHITECTURE.md's recipes, followed by a test that may not edit the product: a toy import
/// format (`ToyFormat`) and a toy metadata source (`ToySource`), each one type in this target,
/// registered by adding it to the list the stages take (`ImportFormats.all`,
/// `MetadataSources.all`), and run through every stage's one entry to the library, its page and
/// its export.
@Suite struct RecipeEndToEndTests {
    let temp = TemporaryDirectory("recipes")

    /// The product's lists with the toys added, as the recipes register a format and a source.
    static let formats: [any ImportFormat] = [ToyFormat()] + ImportFormats.all
    static let sources: [any RegisteredSource.Type] = MetadataSources.all + [ToySource.self]

    /// Two books the toy source knows (one by ISBN, one by title and author), one it does not,
    /// one the format itself refuses.
    static let export = """
        Libro,Autore,Codice,Voto,Stato,Umore
        Il nome della rosa,Umberto Eco,9788845292613,5,letto,cupo
        Le città invisibili,Italo Calvino,,4,da leggere,sognante
        Un libro che nessuno conosce,Nessuno,,3,in lettura,
        Il libro scartato,Qualcuno,,2,scartato,

        """

    /// The shipped example's configuration, lookup asking the toy source alone (and parse reading
    /// `parseFormat`, when given).
    func config(toy: [String: Any]? = nil, parseFormat: String? = nil) throws -> (PipelineConfig, String) {
        var file = try ConfigFile.shippedExample()
        file.editParameters(of: "lookup") { parameters in
            parameters["sources"] = [ToySource.sourceName]
            parameters[ToySource.section] = toy
        }
        if let parseFormat { file.editParameters(of: "parse") { $0["format"] = parseFormat } }
        let path = try file.write(to: temp.file("pipeline.json"))
        return (try PipelineConfig.load(path: path), path)
    }

    func context(_ stage: Stage, _ config: (PipelineConfig, String), _ workspace: Workspace) -> StageContext {
        StageContext(
            config: config.0, configPath: config.1, workspace: workspace, stage: stage, stages: Stage.pipeline,
            log: Logfmt(quiet: true))
    }

    /// Parse, dedupe, lookup, merge and render of the toy export in `run` (files under their
    /// default names), `format` as `--format` gives it.
    func importToy(format: FormatChoice?, run: String, workspace: Workspace) async throws -> (
        ParseReport, LookupReport, MergeReport
    ) {
        let config = try config(toy: ["maxCandidates": 2])
        let input = temp.write("toy.csv", Self.export)
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        func file(_ stage: Stage, _ role: StageFileRole) -> String {
            run + "/" + (stage.outputs.first { $0.role == role }?.defaultName ?? "")
        }
        var parseArguments = ParseStage.Arguments(format: format)
        parseArguments.formats = Self.formats
        let parse = try await ParseStage.perform(
            StageJob(
                inputs: [.export: input],
                outputs: [.records: file(.parse, .records), .rejects: file(.parse, .rejects), .report: file(.parse, .report)],
                arguments: parseArguments),
            context: context(.parse, config, workspace))
        try await DedupeStage.perform(
            StageJob(
                inputs: [.records: file(.parse, .records)],
                outputs: [.records: file(.dedupe, .records), .report: file(.dedupe, .report)]),
            context: context(.dedupe, config, workspace))
        let lookup = try await LookupStage.perform(
            StageJob(
                inputs: [.records: file(.dedupe, .records)],
                outputs: [.records: file(.lookup, .records), .report: file(.lookup, .report)],
                arguments: LookupStage.Arguments(registry: Self.sources)),
            context: context(.lookup, config, workspace))
        let merge = try await MergeStage.perform(
            StageJob(
                inputs: [
                    .records: file(.lookup, .records), .parseReport: file(.parse, .report), .rejects: file(.parse, .rejects),
                ],
                outputs: [
                    .report: file(.merge, .report), .ledger: file(.merge, .ledger), .review: file(.merge, .review),
                    .failedRows: file(.merge, .failedRows),
                ],
                arguments: MergeStage.Arguments(importId: (run as NSString).lastPathComponent)),
            context: context(.merge, config, workspace))
        let render = try await RenderStage.perform(
            StageJob(arguments: RenderStage.Arguments(runDirectory: run, sourceFile: input)),
            context: context(.render, config, workspace))
        #expect(render.reportPath != nil, "render wrote no report page")
        return (parse, lookup, merge)
    }

    func libraryBooks(_ workspace: Workspace) throws -> [LibraryBook] {
        var books: [LibraryBook] = []
        try GzipReader(path: workspace.libraryFile).forEachLine { line, _ in
            books.append(try JSONDecoder().decode(LibraryBook.self, from: Data(line)))
        }
        return books
    }

    @Test(.bug(id: 37), arguments: [nil, FormatChoice.format(ToyFormat().name)])
    func toyFormatAndSourceRunEndToEnd(format: FormatChoice?) async throws {
        let workspace = Workspace(root: temp.file("ws"))
        let (parse, lookup, merge) = try await importToy(format: format, run: temp.file("runs/toy"), workspace: workspace)

        // Parse: detected from the header (no --format) or named, its own cells read, the
        // column it cannot carry said, the row it refuses rejected with its reason.
        #expect(parse.format == ToyFormat().name)
        #expect(parse.rowsRead == 4 && parse.rowsWritten == 3 && parse.rowsRejected == 1)
        #expect(parse.notCarried == ["Umore: the reader's mood; no field holds it"])

        // Lookup: the toy source answered by ISBN and by search; the third book is unknown to it.
        #expect(lookup.sources == ["toy"])
        #expect(lookup.matchesBySource["toy"]?.byIsbn == 1 && lookup.matchesBySource["toy"]?.bySearch == 1)
        #expect(merge.enrichment.isbnBySource == ["toy": 1] && merge.enrichment.searchBySource == ["toy": 1])
        #expect(merge.enrichment.notEnriched == 1 && merge.outcomes.added == 3)

        // The library: the toy's metadata, its own id and its cover, under its name.
        let books = try libraryBooks(workspace)
        let rosa = try #require(books.first { $0.title == "Il nome della rosa" })
        #expect(rosa.enrichmentSource == "toy" && rosa.enrichment == MatchStatus.matchedByIsbn.rawValue)
        #expect(rosa.editionKey == "TOY-1" && rosa.coverURL == "https://toy.example/covers/TOY-1.jpg")
        #expect(rosa.publisher == "Bompiani" && rosa.pages == 503 && rosa.year == 1980)
        #expect(rosa.shelf == "read" && rosa.rating == 5)
        #expect(rosa.provenance.map(\.format) == [ToyFormat().name])
        let calvino = try #require(books.first { $0.title == "Le città invisibili" })
        #expect(calvino.enrichmentSource == "toy" && calvino.editionKey == "TOY-2" && calvino.shelf == "to-read")
        #expect(calvino.isbn13 == "9788804382126")
        let unknown = try #require(books.first { $0.title == "Un libro che nessuno conosce" })
        #expect(unknown.enrichmentSource == nil && unknown.editionKey == nil && unknown.shelf == "currently-reading")

        // The library page shows the toy's cover; the Goodreads export carries its metadata.
        let page = try String(contentsOfFile: LibraryPage.write(workspace: workspace), encoding: .utf8)
        #expect(page.contains("toy.example/covers/TOY-1.jpg"))
        let sink = MemorySink()
        let summary = try LibraryExport(format: .goodreads).write(library: workspace.libraryFile, to: sink)
        #expect(summary.books == 3)
        let exported = String(decoding: sink.bytes, as: UTF8.self)
        let row = try #require(exported.split(separator: "\n").first { $0.contains("Il nome della rosa") })
        #expect(row.contains("Bompiani") && row.contains("503") && row.contains("9788845292613"), "\(row)")
    }

    /// The toy source's section: its default when absent, its value when given, its range checked
    /// (78 naming the key) where the lookup parameters are decoded.
    @Test(.bug(id: 37)) func toySourceSettingsHaveADefaultAndARange() throws {
        let absent = try LookupParameters.decoded(from: config().0, path: "pipeline.json", registry: Self.sources)
        #expect(absent[ToySource.self].maxCandidates == ToySource.Settings.defaultMaxCandidates)
        #expect(absent.sources == ["toy"])
        let given = try LookupParameters.decoded(
            from: config(toy: ["maxCandidates": 7]).0, path: "p.json", registry: Self.sources)
        #expect(given[ToySource.self].maxCandidates == 7)
        let error = #expect(throws: ConfigError.self) {
            try LookupParameters.decoded(from: config(toy: ["maxCandidates": 99]).0, path: "p.json", registry: Self.sources)
        }
        #expect(error?.key.hasSuffix("toy.maxCandidates") == true, "\(String(describing: error))")
        // Without the toy in the list its section is an unknown key.
        #expect(throws: ConfigError.self) {
            try LookupParameters.decoded(from: config(toy: ["maxCandidates": 2]).0, path: "p.json")
        }
    }

    /// The toy source answers by its own ids, and only by them.
    @Test(.bug(id: 37)) func toySourceAnswersByItsOwnIds() async throws {
        let found = try await ToySource(settings: .init()).editions(ids: ["TOY-2", "TOY-9", "/books/OL1M"])
        #expect(found.keys.sorted() == ["TOY-2"])
        #expect(found["TOY-2"]?.title == "Le città invisibili" && found["TOY-2"]?.source == "toy")
    }

    /// `parse.format` in pipeline.json names any format of the list the stage runs with, the toy
    /// too: a file of another shape is then read as the toy's, and refused naming its columns. A
    /// parse without the toy refuses the name, listing the formats it has.
    @Test(.bug(id: 37)) func configuredParseFormatNamesTheToyFormat() async throws {
        let config = try config(parseFormat: ToyFormat().name.rawValue)
        let input = temp.write("other.csv", "Title,Author\nDune,Frank Herbert\n")
        func parse(_ formats: [any ImportFormat]) async throws {
            var arguments = ParseStage.Arguments()
            arguments.formats = formats
            _ = try await ParseStage.perform(
                StageJob(inputs: [.export: input], outputs: [.records: temp.file("out.ndjson.gz")], arguments: arguments),
                context: context(.parse, config, Workspace(root: temp.file("ws"))))
        }
        let refused = await #expect(throws: ParseError.self) { try await parse(Self.formats) }
        #expect(refused.map { "\($0)" }?.contains("libro") == true, "\(String(describing: refused))")
        let unknown = await #expect(throws: ConfigError.self) { try await parse(ImportFormats.all) }
        let message = unknown.map { "\($0)" } ?? ""
        #expect(message.contains("parameters.format") && message.contains("'toy' is not allowed"), "\(message)")
    }

    /// An unknown `parse.format` is refused (78) in one line listing the formats the run has, the
    /// toy included, not the product's alone.
    @Test(.bug(id: 37)) func unknownParseFormatListsTheRunsFormats() async throws {
        let config = try config(parseFormat: "libro")
        var arguments = ParseStage.Arguments()
        arguments.formats = Self.formats
        let job = StageJob(
            inputs: [.export: temp.write("toy.csv", Self.export)], outputs: [.records: temp.file("out.ndjson.gz")],
            arguments: arguments)
        let error = await #expect(throws: ConfigError.self) {
            _ = try await ParseStage.perform(job, context: context(.parse, config, Workspace(root: temp.file("ws"))))
        }
        let expected =
            "'libro' is not allowed; expected one of " + (["auto"] + Self.formats.map(\.name.rawValue)).joined(separator: ", ")
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("parameters.format") && message.hasSuffix(expected), "\(message)")
        #expect(!message.contains("\n") && error?.exitStatus == .config)
    }

    /// Named with `--format toy`, a file of another shape is refused naming the toy's columns.
    @Test(.bug(id: 37)) func forcedToyFormatNamesItsMissingColumns() throws {
        let input = temp.write("other.csv", "Title,Author\nDune,Frank Herbert\n")
        var arguments = ParseStage.Arguments(format: .format(ToyFormat().name))
        arguments.formats = Self.formats
        let job = StageJob(inputs: [.export: input], outputs: [.records: temp.file("out.ndjson.gz")], arguments: arguments)
        let error = #expect(throws: ParseError.self) { try ParseStage(job: job).run() }
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("toy") && text.contains("libro"), "\(text)")
    }
}

/// The bytes an export writes, kept in memory.
final class MemorySink: ByteSink {
    var bytes: [UInt8] = []
    func write(_ bytes: UnsafeRawBufferPointer) throws { self.bytes += bytes }
}
