import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// The scratch directories merge and `shelfline rebuild` keep in the library directory while they
/// work, named after their process (`.merge-work-PID`, `.rebuild-PID`). Each removes its own when it
/// ends, on an error or a signal; one left by a process killed outright is removed by the next
/// merge or rebuild (`sweep`), as the catalog index build removes its own.
public enum LibraryScratch: String, CaseIterable, Sendable {
    case merge = ".merge-work-"
    case rebuild = ".rebuild-"

    /// This process's scratch directory of this kind.
    public func directory(in workspace: Workspace) -> String {
        workspace.libraryDirectory + "/" + rawValue + String(getpid())
    }

    /// Removes every kind's scratch whose process no longer exists; returns the names removed.
    @discardableResult
    public static func sweep(_ workspace: Workspace) -> [String] {
        allCases.flatMap {
            StaleTemporaryFiles.removeAbandoned(in: workspace.libraryDirectory, prefix: $0.rawValue, marker: $0.rawValue)
        }
    }
}
