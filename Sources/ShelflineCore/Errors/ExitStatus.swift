/// The documented exit statuses of every Shelfline executable (sysexits.h values).
///
/// This is the only place where errors become numbers: see `ExitStatus.init(for:)`.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    case ok = 0
    case usage = 64
    case dataError = 65
    case noInput = 66
    case cannotCreate = 73
    case ioError = 74
    case tryLater = 75
    case config = 78

    /// One-line meaning, used by `--help` texts and the README table.
    public var meaning: String {
        switch self {
        case .ok: "success"
        case .usage: "bad command line"
        case .dataError: "bad input data (malformed file, corrupt gzip, too many rejected rows)"
        case .noInput: "input file missing or unreadable"
        case .cannotCreate: "cannot create an output file or directory"
        case .ioError: "I/O error while reading or writing"
        case .tryLater: "locked by another run, or paused; try again later"
        case .config: "invalid configuration (pipeline.json)"
        }
    }

    /// The table printed at the end of every `--help`.
    public static var helpTable: String {
        "Exit status:\n" + allCases.map { "  \($0.rawValue)  \($0.meaning)" }.joined(separator: "\n")
    }

    /// Maps any error to its exit status. Errors that are not `ShelflineError` are I/O errors.
    public init(for error: any Error) {
        self = (error as? any ShelflineError)?.exitStatus ?? .ioError
    }
}

/// An error a user can act on: a one-line message that names the file (and line) involved.
public protocol ShelflineError: Error, CustomStringConvertible, Sendable {
    var exitStatus: ExitStatus { get }
    /// The process exit code; differs from `exitStatus` only when passing on a child's own status.
    var exitCode: Int32 { get }
}

extension ShelflineError {
    public var exitCode: Int32 { exitStatus.rawValue }
}
