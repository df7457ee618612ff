import ArgumentParser
import Foundation
import ShelflineCore
import ShelflineLibrary
import ShelflineStageCLI

#if canImport(Glibc)
    import Glibc
#endif

extension ExportFormat: ExpressibleByArgument {}

/// `shelfline export`: the library out, as a Goodreads or StoryGraph CSV or as NDJSON.
struct ExportCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the library as a Goodreads or StoryGraph export, or as NDJSON.",
        discussion: helpDiscussion(
            """
            Reads <workspace>/library/library.ndjson.gz and writes one row per book, in the library's \
            order, to --output (atomically: a temporary file renamed over it) or to standard output. \
            Formats, and what each cannot carry:
            \(ExportFormat.allCases.map { "  \($0.rawValue): \($0.limits)." }.joined(separator: "\n"))
            Cells are written as they are, as Goodreads writes them: a cell starting with =, +, - or @ \
            is not escaped (docs/export.md says how to open such a file in a spreadsheet safely). \
            --output keeps the permissions of the file it replaces; a new file is made readable by \
            its owner only (600: an export holds private notes and reviews) unless --mode says otherwise. \
            A --shelf no book is on is an error naming the library's shelves. \
            Exit statuses: 0 written (also when a reader of standard output goes away early, | head); \
            64 bad option, or a --shelf no book is on; 65 corrupt library; 66 no library yet; 73 output \
            cannot be created; 74 I/O error.
            """))

    @OptionGroup public var common: CommonOptions

    @Option(name: .long, help: "goodreads, storygraph or ndjson.")
    public var format: ExportFormat

    @Option(name: .long, help: "Only books on this shelf (exclusive or not); repeat for several.")
    public var shelf: [String] = []

    @Option(name: [.short, .long], help: "File to write (default: standard output).")
    public var output: String?

    @Option(name: .long, help: "Permissions of --output, octal (default: the replaced file's, else 600).")
    public var mode: String?

    /// Permissions for `output`: `--mode`, else those of the file it replaces, else owner-only.
    static func permissions(mode: String?, replacing output: String) throws -> mode_t {
        if let mode {
            guard let value = mode_t(mode, radix: 8), value <= 0o777 else {
                throw UsageError("--mode '\(mode)': give octal permissions such as 600 or 644")
            }
            return value
        }
        var status = stat()
        if stat(output, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG { return status.st_mode & 0o7777 }
        return 0o600
    }

    public func run() async throws {
        try await reportingErrors(as: "shelfline export") {
            let context = try common.context(stages: Stage.pipeline)
            let export = LibraryExport(format: format, shelves: shelf)
            let library = context.workspace.libraryFile
            if mode != nil && output == nil { throw UsageError("--mode sets the permissions of -o FILE; give -o or drop --mode") }
            if let output {
                try StageFiles.check(inputs: [library], outputs: [output])
                let file = try AtomicFile(path: output, permissions: try Self.permissions(mode: mode, replacing: output))
                let summary = try export.write(library: library, to: file)
                try file.commit()
                if !common.quiet {
                    FileHandle.standardError.write(
                        Data("exported \(summary.books) books (\(format.rawValue)) to \(output)\n".utf8))
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
