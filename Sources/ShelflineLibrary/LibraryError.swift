import ShelflineCore

/// Errors of the library side: an untrustworthy library, inputs that do not add up, unknown review rows.
public enum LibraryError: ShelflineError, Equatable {
    case corruptLibrary(path: String, reason: String, backup: String, backupExists: Bool)
    /// The run's files disagree about how many rows there were.
    case countMismatch(path: String, rowsRead: Int, records: Int, rejected: Int)
    case noReviewList(path: String)
    case unknownReviewRow(path: String, row: Int, rows: [Int])
    /// CANDIDATE is neither a listed number nor a listed key.
    case unknownCandidate(row: Int, candidate: String, count: Int)
    /// Not `FileError.io`, which the library scan reads as a damaged library.
    case scratchIO(path: String, reason: String)

    public var exitStatus: ExitStatus {
        switch self {
        case .corruptLibrary, .countMismatch: .dataError
        case .noReviewList: .noInput
        case .unknownReviewRow, .unknownCandidate: .usage
        case .scratchIO: .ioError
        }
    }

    public var description: String {
        switch self {
        case .corruptLibrary(let path, let reason, let backup, let backupExists):
            let recovery =
                backupExists
                ? "run `shelfline rebuild` (it rebuilds the library from the imports stored under runs/), or restore the previous generation with `cp \(backup) \(path)` and re-run the imports made since"
                : "run `shelfline rebuild` (it rebuilds the library from the imports stored under runs/), or move the file aside and re-import your exports (no previous generation exists at \(backup))"
            return "\(path): library is corrupt (\(reason)); it was left untouched. To recover, \(recovery)"
        case .countMismatch(let path, let rowsRead, let records, let rejected):
            return
                "\(path): parse report says rowsRead \(rowsRead), but the run holds \(records) records + \(rejected) rejected rows; re-run parse"
        case .noReviewList(let path):
            return "\(path): no review list (run an import first, or pass --run DIR)"
        case .unknownReviewRow(let path, let row, let rows):
            let listed = rows.isEmpty ? "none" : rows.prefix(20).map(String.init).joined(separator: ", ")
            return "\(path): row \(row) is not in the review list (rows needing review: \(listed))"
        case .unknownCandidate(let row, let candidate, let count):
            return "row \(row): no candidate '\(candidate)' (give 1…\(count) or a candidate key from `review list`)"
        case .scratchIO(let path, let reason):
            return "\(path): I/O error on a scratch file: \(reason); nothing was written"
        }
    }
}
