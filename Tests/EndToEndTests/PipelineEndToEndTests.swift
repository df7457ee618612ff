import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import TestTraits
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The whole import through the real stage executables, driven by `shelfline run`.
@Suite(.serialized, .offCooperativePool) struct PipelineEndToEndTests {
    static let example = ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv"
    /// The example's config (catalog only, so no test contacts the internet; issue 14 §5).
    static let shippedConfig = ExecutableRunner.repositoryRoot + "/examples/pipeline.json"

    func run(_ arguments: [String], in dir: TemporaryDirectory) throws -> ProcessResult {
        try ExecutableRunner.run("shelfline", arguments, in: dir.path)
    }

    func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @Test(.bug(id: 5)) func exampleImportsOfflineAndRerunIsANoOpWithIdenticalLibrary() throws {
        let dir = TemporaryDirectory("pipeline")
        let workspace = dir.file("ws")
        let arguments = ["run", "--csv", Self.example, "--config", Self.shippedConfig, "--workspace", workspace]
        let first = try run(arguments, in: dir)
        #expect(first.status == 0, "\(first)")
        #expect(first.stdout.contains("15 rows read"), "\(first)")
        let report = try readJSONFile(MergeReport.self, from: workspace + "/runs/latest/merge-report.json")
        #expect(report.rowsRead == 15)
        #expect(report.outcomes.total == report.rowsRead)
        let library = try #require(bytes(workspace + "/library/library.ndjson.gz"))
        // The page names the user's file and shows the merge report's counts (issue 42: it only had to exist).
        let page = try ImportReportPageReading(path: workspace + "/runs/latest/report.html")
        #expect(page.title == "goodreads_library_export.csv")
        #expect(page.rowsRead == 15 && page.libraryBooks == report.libraryBooks, "\(page)")
        #expect(
            page.outcomes == [
                "added": report.outcomes.added, "updated": report.outcomes.updated,
                "duplicateInFile": report.outcomes.duplicateInFile, "rejected": report.outcomes.rejected,
            ])
        #expect(FileManager.default.fileExists(atPath: workspace + "/activity/import.json"))

        let second = try run(arguments, in: dir)
        #expect(second.status == 0, "\(second)")
        #expect(second.stdout.contains("already imported"), "\(second)")
        #expect(!second.stderr.contains("event=start"), "\(second)")
        #expect(bytes(workspace + "/library/library.ndjson.gz") == library)
    }

    /// Parse's texts file (reviews and notes apart from the records, `RecordTexts`) is one of its
    /// outputs to the orchestrator: gone since, parse runs again and writes it, and as its other
    /// outputs come out the same, nothing after it runs.
    @Test(.bug(id: 25)) func aTextsFileGoneSinceTheImportRerunsParseAlone() throws {
        let dir = TemporaryDirectory("pipeline-texts")
        let workspace = dir.file("ws")
        let arguments = ["run", "--csv", Self.example, "--config", Self.shippedConfig, "--workspace", workspace]
        let first = try run(arguments, in: dir)
        #expect(first.status == 0, "\(first)")
        let texts = workspace + "/runs/latest/texts.ndjson.gz"
        let written = try #require(bytes(texts))
        #expect(try gunzip(texts).count > 100, "the example's reviews are apart from its records")
        let library = try #require(bytes(workspace + "/library/library.ndjson.gz"))
        try FileManager.default.removeItem(atPath: texts)
        let second = try run(arguments, in: dir)
        #expect(second.status == 0, "\(second)")
        #expect(second.stderr.contains("stage=parse event=start reason=\"output missing: texts.ndjson.gz\""), "\(second)")
        for stage in ["dedupe", "lookup", "merge"] {
            #expect(second.stderr.contains("stage=\(stage) event=skip"), "\(second)")
        }
        #expect(bytes(texts) == written)
        #expect(bytes(workspace + "/library/library.ndjson.gz") == library)
    }

    /// A Goodreads export of `count` books with valid, distinct ISBN-13s.
    static func syntheticExport(count: Int) -> String {
        var text =
            "Book Id,Title,Author,Author l-f,Additional Authors,ISBN,ISBN13,My Rating,Average Rating,Publisher,"
            + "Binding,Number of Pages,Year Published,Original Publication Year,Date Read,Date Added,Bookshelves,"
            + "Bookshelves with positions,Exclusive Shelf,My Review,Spoiler,Private Notes,Read Count,Owned Copies\n"
        for index in 0..<count {
            let isbn = isbn13(body: String(format: "978%09d", 100_000 + index * 7))
            text +=
                "\(index + 1),Book \(index),Author \(index % 37),,,=\"\",\"=\"\"\(isbn)\"\"\",\(index % 6),4.0,Press,"
                + "Paperback,\(100 + index),2001,2001,,2024/01/01,to-read,,to-read,,,,0,0\n"
        }
        return text
    }

    static func isbn13(body: String) -> String {
        let digits = body.compactMap(\.wholeNumberValue)
        let sum = digits.enumerated().reduce(0) { $0 + $1.element * ($1.offset % 2 == 0 ? 1 : 3) }
        return body + String((10 - sum % 10) % 10)
    }

    /// A config whose lookup asks only the (loopback) Open Library API, slowly enough to be killed.
    static func httpConfig(baseURL: String, in dir: TemporaryDirectory) throws -> String {
        var config = try ConfigFile(contentsOf: shippedConfig)
        config[stage: "lookup"]?["parameters"] =
            [
                "sources": ["openlibrary"], "catalog": [] as [String],
                "openLibrary": [
                    "baseURL": baseURL, "requestsPerSecond": 20, "batchSize": 4, "concurrency": 2,
                    "timeoutSeconds": 30, "maxRetries": 2,
                ],
            ] as [String: Any]
        return try config.write(to: dir.file("pipeline.json"))
    }

    /// Open Library's batch endpoint, answering every ISBN with an edition derived from it.
    static func openLibrary() async throws -> FakeOpenLibraryServer {
        // The row's own author (see `syntheticExport`): an edition naming neither the row's title nor
        // its author would be an ISBN conflict, which goes to review (issue 14).
        let server = try await FakeOpenLibraryServer(derive: { isbn in
            let row = ((Int(isbn.dropFirst(3).prefix(9)) ?? 100_000) - 100_000) / 7
            return .init(
                key: "/books/OL\(isbn.suffix(6))M", title: "Edition \(isbn)", authors: ["Author \(row % 37)"],
                work: "/works/OL\(isbn.suffix(6))W")
        })
        server.latency = .milliseconds(40)
        return server
    }

    @Test(.bug(id: 5)) func sigkillDuringLookupThenResumeGivesTheSameLibraryAsAnUninterruptedRun() async throws {
        let server = try await Self.openLibrary()
        defer { Task { try? await server.shutdown() } }
        let dir = TemporaryDirectory("pipeline-kill")
        let csv = dir.write("export.csv", Self.syntheticExport(count: 240))
        let config = try Self.httpConfig(baseURL: server.baseURL, in: dir)

        // Reference: an uninterrupted import in its own workspace.
        let reference = try ExecutableRunner.run(
            "shelfline",
            [
                "run", "--csv", csv, "--config", config, "--workspace",
                dir.file("reference"), "--quiet",
            ], in: dir.path)
        #expect(reference.status == 0, "\(reference)")
        let uninterruptedRequests = server.requests.count

        // Interrupted: SIGKILL the lookup process part-way, then run again.
        let workspace = dir.file("ws")
        let orchestrator = ExecutableRunner.start(
            "shelfline",
            [
                "run", "--csv", csv, "--config", config, "--workspace",
                workspace, "--quiet",
            ])
        orchestrator.standardError = FileHandle.nullDevice
        try orchestrator.run()
        let lookupPid = try #require(waitForChild(of: orchestrator.processIdentifier, named: "shelfline-looku"))
        let before = server.requests.count
        try #require(
            waitUntil { server.requests.count - before >= uninterruptedRequests / 3 },
            "lookup never sent a third of its requests")
        kill(lookupPid, SIGKILL)
        orchestrator.waitUntilExit()
        #expect(orchestrator.terminationStatus != 0)
        let afterKill = server.requests.count
        #expect(afterKill - before < uninterruptedRequests, "the kill came after lookup had finished")

        let resumed = try ExecutableRunner.run(
            "shelfline",
            [
                "run", "--csv", csv, "--config", config, "--workspace",
                workspace,
            ], in: dir.path)
        #expect(resumed.status == 0, "\(resumed)")
        #expect(resumed.stderr.contains("stage=parse event=skip"), "\(resumed)")
        #expect(resumed.stderr.contains("stage=lookup event=start"), "\(resumed)")
        let resumedRequests = server.requests.count - afterKill
        // The cache kept what finished before the kill: the resumed run asks only for the rest.
        #expect(resumedRequests < uninterruptedRequests, "resumed \(resumedRequests) of \(uninterruptedRequests)")
        #expect(bytes(workspace + "/library/library.ndjson.gz") == bytes(dir.file("reference/library/library.ndjson.gz")))
        let report = try readJSONFile(MergeReport.self, from: workspace + "/runs/latest/merge-report.json")
        #expect(report.rowsRead == 240)
        #expect(report.enrichment.matchedByIsbn == 240)
    }

    @Test(.bug(id: 3)) func reviewAcceptRerunsOnlyMergeAndRender() throws {
        let dir = TemporaryDirectory("pipeline-review")
        let header = try String(contentsOfFile: Self.example, encoding: .utf8).split(separator: "\n")[0]
        // No ISBN and no author: the catalog's two "Kindred"s cannot be told apart automatically.
        let csv = dir.write("export.csv", header + "\n1,Kindred,,,,=\"\",=\"\",4,4.0,,,,,,,2024/01/01,,,read,,,,1,0\n")
        let workspace = dir.file("ws")
        let common = ["--config", Self.shippedConfig, "--workspace", workspace]
        let first = try run(["run", "--csv", csv] + common, in: dir)
        #expect(first.status == 0, "\(first)")
        #expect(first.stdout.contains("1 need review"), "\(first)")
        let list = try run(["review", "list"] + common, in: dir)
        #expect(list.status == 0, "\(list)")
        #expect(list.stdout.contains("row 2: Kindred"), "\(list)")
        #expect(list.stdout.contains("Octavia E. Butler"), "\(list)")
        let accept = try run(["review", "accept", "2", "1"] + common, in: dir)
        #expect(accept.status == 0, "\(accept)")
        let unknown = try run(["review", "accept", "99", "1"] + common, in: dir)
        #expect(unknown.status == 64, "\(unknown)")
        let rerun = try run(["run", "--csv", csv] + common, in: dir)
        #expect(rerun.status == 0, "\(rerun)")
        for stage in ["parse", "dedupe", "lookup"] {
            #expect(rerun.stderr.contains("stage=\(stage) event=skip"), "\(rerun)")
        }
        #expect(rerun.stderr.contains("stage=merge event=start reason=\"input changed: {decisions}\""), "\(rerun)")
        let library = try String(decoding: gunzip(workspace + "/library/library.ndjson.gz"), as: UTF8.self)
        #expect(library.contains("/books/OL920017M"), "\(library)")
    }

    func gunzip(_ path: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try GzipReader(path: path).forEachChunk { bytes += $0 }
        return bytes
    }

    /// The pid of `parent`'s child whose command name starts with `name` (15-char comm limit).
    func waitForChild(of parent: pid_t, named name: String) -> pid_t? {
        var found: pid_t?
        _ = waitUntil {
            // Children are listed per thread, and stages are spawned from a worker thread.
            let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(parent)/task")) ?? []
            let children = threads.map {
                (try? String(contentsOfFile: "/proc/\(parent)/task/\($0)/children", encoding: .utf8)) ?? ""
            }.joined(separator: " ")
            found = children.split(separator: " ").compactMap { pid_t($0) }.first { pid in
                ((try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "").hasPrefix(name)
            }
            return found != nil
        }
        return found
    }
}
