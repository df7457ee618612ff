import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// The scratch directories merge and `shelfline rebuild` keep in the library directory, named after
/// their process; one left by a process killed outright is removed by the next merge or rebuild (`sweep`).
public enum LibraryScratch: String, CaseIterable, Sendable {
    case merge = ".merge-work-"
    case rebuild = ".rebuild-"

    public func directory(in workspace: Workspace) -> String {
        workspace.libraryDirectory + "/" + rawValue + String(getpid())
    }

    /// Removes the scratch of processes that no longer exist; returns the names removed.
    @discardableResult
    public static func sweep(_ workspace: Workspace) -> [String] {
        allCases.flatMap {
            StaleTemporaryFiles.removeAbandoned(in: workspace.libraryDirectory, prefix: $0.rawValue, marker: $0.rawValue)
        }
    }
}
