import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import TestTraits
import Testing

/// Every executable started from a working directory that has been deleted (a shell left in a
/// removed folder, cron's `cd` into one): a relative workspace, config or input is an error naming
/// the cause (73 for the workspace and outputs, 66 for inputs), never a path under `/`; absolute
/// paths work as anywhere else.
@Suite(.bug(id: 23), .offCooperativePool) struct WorkingDirectoryEndToEndTests {
    static let example = ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv"

    /// Runs `name` from a directory removed just before it starts: the shell enters it, removes
    /// it, and becomes the executable, which inherits the deleted working directory.
    static func runInDeletedDirectory(_ name: String, _ arguments: [String], in dir: TemporaryDirectory) throws -> ProcessResult {
        let gone = dir.file("gone-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: gone, withIntermediateDirectories: false)
        return try ExecutableRunner.run(
            "/bin/sh",
            [
                "-c", "cd \"$1\" && rmdir \"$1\" && shift && exec \"$@\"", "sh", gone,
                ExecutableRunner.path(name),
            ] + arguments, in: dir.path)
    }

    /// A relative path no test would create under `/` on its own, removed afterwards if a
    /// regression did create it, so a failing run never leaves litter at the root.
    final class RootLitter {
        let top = "shelfline-gone-cwd-\(UUID().uuidString.prefix(8))"
        var relative: String { top + "/ws" }
        var existsUnderRoot: Bool { FileManager.default.fileExists(atPath: "/" + top) }
        deinit { try? FileManager.default.removeItem(atPath: "/" + top) }
    }

    /// The example config (absolute catalog paths) without `workspace`, so `./var` is the default.
    func config(in dir: TemporaryDirectory) throws -> String {
        var config = try ConfigFile.shippedExample()
        config.object.removeValue(forKey: "workspace")
        return try config.write(to: dir.file("pipeline.json"))
    }

    @Test func relativeWorkspaceFromADeletedDirectoryIsRefusedAndNothingIsWrittenUnderRoot() throws {
        let dir = TemporaryDirectory("gone-cwd")
        let litter = RootLitter()
        let result = try Self.runInDeletedDirectory(
            "shelfline", ["run", "--csv", Self.example, "--config", try config(in: dir), "--workspace", litter.relative], in: dir)
        #expect(result.status == 73, "\(result)")
        #expect(
            result.stderr.contains(litter.relative) && result.stderr.contains("the working directory no longer exists"),
            "\(result)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
        #expect(!litter.existsUnderRoot, "a relative workspace was resolved against /")
    }

    @Test func defaultWorkspaceFromADeletedDirectoryIsAnErrorNotSlashVar() throws {
        // `status` only reads, so this checks the `./var` default without any risk of writing /var.
        let dir = TemporaryDirectory("gone-cwd")
        let result = try Self.runInDeletedDirectory("shelfline", ["status", "--config", try config(in: dir)], in: dir)
        #expect(result.status == 2, "\(result)")
        #expect(
            result.stderr.contains("var: cannot create output") && result.stderr.contains("working directory no longer exists"),
            "\(result)")
        #expect(!result.stdout.contains("pending"), "\(result)")
    }

    @Test func relativeExportOrConfigFromADeletedDirectoryIsNamed() throws {
        let dir = TemporaryDirectory("gone-cwd")
        let workspace = dir.file("ws")
        let export = try Self.runInDeletedDirectory(
            "shelfline", ["run", "--csv", "export.csv", "--config", try config(in: dir), "--workspace", workspace], in: dir)
        #expect(export.status == 66, "\(export)")
        #expect(
            export.stderr.contains("export.csv: cannot read input")
                && export.stderr.contains("working directory no longer exists"),
            "\(export)")
        let config = try Self.runInDeletedDirectory(
            "shelfline", ["run", "--csv", Self.example, "--config", "pipeline.json", "--workspace", workspace], in: dir)
        #expect(config.status == 66, "\(config)")
        #expect(
            config.stderr.contains("pipeline.json: cannot read input")
                && config.stderr.contains("working directory no longer exists"),
            "\(config)")
        let inbox = try Self.runInDeletedDirectory(
            "shelfline", ["run", "--inbox", "inbox", "--config", try self.config(in: dir), "--workspace", workspace], in: dir)
        #expect(inbox.status == 66, "\(inbox)")
        #expect(!FileManager.default.fileExists(atPath: workspace + "/runs/latest"))
    }

    @Test func absolutePathsFromADeletedDirectoryImportAsAnywhereElse() throws {
        let dir = TemporaryDirectory("gone-cwd")
        let workspace = dir.file("ws")
        let result = try Self.runInDeletedDirectory(
            "shelfline", ["run", "--csv", Self.example, "--config", try config(in: dir), "--workspace", workspace, "--quiet"],
            in: dir)
        #expect(result.status == 0, "\(result)")
        let report = try readJSONFile(MergeReport.self, from: workspace + "/runs/latest/merge-report.json")
        #expect(report.rowsRead == 15)
    }

    /// The stages run in the run's directory: a config named relative to where `shelfline` started
    /// reaches each of them (the orchestrator passes it on absolute).
    @Test func aRelativeConfigReachesEveryStage() throws {
        let dir = TemporaryDirectory("relative-config")
        _ = try config(in: dir)
        let workspace = dir.file("ws")
        let result = try ExecutableRunner.run(
            "shelfline", ["run", "--csv", Self.example, "--config", "pipeline.json", "--workspace", workspace, "--quiet"],
            in: dir.path)
        #expect(result.status == 0, "\(result)")
        #expect(try readJSONFile(MergeReport.self, from: workspace + "/runs/latest/merge-report.json").rowsRead == 15)
    }

    @Test func stageExecutablesFromADeletedDirectoryNameTheCause() throws {
        let dir = TemporaryDirectory("gone-cwd")
        let litter = RootLitter()
        // Relative input (66) and relative output (73), the workspace absolute.
        let input = try Self.runInDeletedDirectory(
            "shelfline-parse", ["export.csv", "-o", dir.file("p.ndjson.gz"), "--workspace", dir.file("ws")], in: dir)
        #expect(input.status == 66, "\(input)")
        #expect(input.stderr.contains("export.csv") && input.stderr.contains("working directory no longer exists"), "\(input)")
        let output = try Self.runInDeletedDirectory(
            "shelfline-parse", [Self.example, "-o", "parsed.ndjson.gz", "--workspace", dir.file("ws")], in: dir)
        #expect(output.status == 73, "\(output)")
        #expect(
            output.stderr.contains("parsed.ndjson.gz") && output.stderr.contains("working directory no longer exists"),
            "\(output)")
        // A relative workspace, for the stages and tools that keep state in it.
        for (name, arguments) in [
            ("shelfline-lookup", [dir.file("in.ndjson.gz"), "-o", dir.file("out.ndjson.gz")]),
            ("shelfline-render", ["beer-queue", "--json", dir.file("queue.json")]),
            ("shelfline-push", ["list"]),
        ] {
            let result = try Self.runInDeletedDirectory(name, arguments + ["--workspace", litter.relative], in: dir)
            #expect(result.status == 73, "\(name): \(result)")
            #expect(result.stderr.contains("working directory no longer exists"), "\(name): \(result)")
        }
        #expect(!litter.existsUnderRoot, "a relative workspace was resolved against /")
    }
}
