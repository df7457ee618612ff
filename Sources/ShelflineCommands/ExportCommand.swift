#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import ShelflineCore
import ShelflineLibrary
import ShelflineStageCLI

extension ExportFormat: ExpressibleByArgument {}

/// `shelfline export`: the library out, as a Goodreads or StoryGraph CSV or as NDJSON.
public struct ExportCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the library as a Goodreads or StoryGraph export, or as NDJSON.",
        discussion: helpDiscussion("""
            Reads <workspace>/library/library.ndjson.gz and writes one row per book, in the library's \
            order, to --output (atomically: a temporary file renamed over it) or to standard output. \
            Formats, and what each cannot carry:
            \(ExportFormat.allCases.map { "  \($0.rawValue): \($0.limits)." }.joined(separator: "\n"))
            Cells are written as they are, as Goodreads writes them: a cell starting with =, +, - or @ \
            is not escaped (docs/export.md says how to open such a file in a spreadsheet safely). \
            Exit statuses: 0 written; 64 bad option; 65 corrupt library; 66 no library yet; 73 output \
            cannot be created; 74 I/O error.
            """))

    @OptionGroup public var common: CommonOptions

    @Option(name: .long, help: "goodreads, storygraph or ndjson.")
    public var format: ExportFormat

    @Option(name: .long, help: "Only books on this shelf (exclusive or not); repeat for several.")
    public var shelf: [String] = []

    @Option(name: [.short, .long], help: "File to write (default: standard output).")
    public var output: String?

    public init() {}

    public func run() async throws {
        try await reportingErrors(as: "shelfline export") {
            let context = try common.context(stages: PipelineStages.descriptions)
            let export = LibraryExport(format: format, shelves: shelf)
            let library = context.workspace.libraryFile
            if let output {
                try StageFiles.check(inputs: [library], outputs: [output])
                let file = try AtomicFile(path: output)
                let summary = try export.write(library: library, to: file)
                try file.commit()
                if !common.quiet {
                    FileHandle.standardError.write(Data("exported \(summary.books) books (\(format.rawValue)) to \(output)\n".utf8))
                }
            } else {
                signal(SIGPIPE, SIG_IGN)
                do {
                    try export.write(library: library, to: StandardOutput())
                } catch is StandardOutput.Closed {
                    return
                }
            }
        }
    }
}
