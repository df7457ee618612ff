/// The documented exit statuses (sysexits.h values); errors become numbers only in `init(for:)`.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    case ok = 0
    case usage = 64
    case dataError = 65
    case noInput = 66
    case cannotCreate = 73
    case ioError = 74
    case tryLater = 75
    case config = 78

    /// As `--help` and the README's table say it.
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

    public static var helpTable: String {
        "Exit status:\n" + allCases.map { "  \($0.rawValue)  \($0.meaning)" }.joined(separator: "\n")
    }

    /// An error that is not a `ShelflineError` is an I/O error.
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
