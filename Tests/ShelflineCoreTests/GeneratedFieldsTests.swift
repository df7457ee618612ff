import Foundation
import TestSupport
import TestTraits
import Testing

/// The build writes the per-field code from the one table of fields (`codegen/fields.json`); the two
/// documents the table also gives are committed, and a table edited without `make generate` leaves them behind it.
@Suite(.offCooperativePool) struct GeneratedFieldsTests {
    private func fields(_ arguments: [String], table: String? = nil) throws -> ProcessResult {
        try ExecutableRunner.run(
            "/usr/bin/env", ["python3", "codegen/fields.py"] + arguments, in: ExecutableRunner.repositoryRoot,
            environment: table.map { ["SHELFLINE_FIELDS_TABLE": $0] } ?? [:])
    }

    private func names(in directory: String) -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
    }

    @Test(.bug(id: 37)) func theCommittedDocsAreWhatTheTableGives() throws {
        let result = try fields(["--check"])
        #expect(result.status == 0, "\(result)")
    }

    /// The build plugin's output directory holds exactly the target's generated files: one the table no
    /// longer gives would still be compiled. A file the script did not write is never removed.
    @Test func aTargetsFilesReplaceTheGeneratedFilesItsDirectoryHeld() throws {
        let directory = TemporaryDirectory("fields")
        directory.write("Dropped.generated.swift", "struct Dropped {}\n")
        directory.write("Kept.swift", "struct Kept {}\n")
        let result = try fields(["--swift", "ShelflineCore", directory.path])
        #expect(result.status == 0, "\(result)")
        #expect(names(in: directory.path) == ["BookRecord.generated.swift", "BookRecordScan.generated.swift", "Kept.swift"])
    }

    /// A relative directory is the working directory's, for writing and for cleaning alike.
    @Test func aRelativeDirectoryIsTheWorkingDirectorys() throws {
        let directory = TemporaryDirectory("fields")
        let script = ExecutableRunner.repositoryRoot + "/codegen/fields.py"
        let result = try ExecutableRunner.run(
            "/usr/bin/env", ["python3", script, "--swift", "ShelflineCore", "out"], in: directory.path)
        #expect(result.status == 0, "\(result)")
        #expect(names(in: directory.file("out")) == ["BookRecord.generated.swift", "BookRecordScan.generated.swift"])
    }

    @Test(arguments: [
        ("{\"fields\": [", ":1:13: not JSON"),
        ("[1]", ": not a table of fields"),
        ("{\"fields\": [{\"name\": \"title\"}], \"structs\": {}}", ": a field or struct lacks the key 'in'"),
    ])
    func aBrokenTableFailsTheBuildInOneLineNamingItAndWritesNothing(table: String, message: String) throws {
        let directory = TemporaryDirectory("fields")
        let path = directory.write("fields.json", table)
        let output = directory.file("out")
        let result = try fields(["--swift", "ShelflineCore", output], table: path)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix(path + message), "\(result)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
