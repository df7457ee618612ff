import Foundation

/// The paths inside a workspace (`--workspace`, `SHELFLINE_WORKSPACE`, or `./var`).
public struct Workspace: Sendable, Equatable {
    public var root: String

    public init(root: String) { self.root = root }

    /// Resolves the workspace from an explicit flag, the environment, the config, then `./var`.
    public static func resolve(flag: String?, environment: [String: String], config: PipelineConfig?) -> Workspace {
        Workspace(root: flag ?? environment["SHELFLINE_WORKSPACE"] ?? config?.workspace ?? "./var")
    }

    public var libraryDirectory: String { root + "/library" }
    public var libraryFile: String { libraryDirectory + "/library.ndjson.gz" }
    /// The previous generation of the library, kept on every write.
    public var libraryBackup: String { libraryDirectory + "/library.previous.ndjson.gz" }
    public var decisionsFile: String { libraryDirectory + "/decisions.json" }
    public var runsDirectory: String { root + "/runs" }
    public var cacheDirectory: String { root + "/cache" }
    public var activityDirectory: String { root + "/activity" }
    public var lockFile: String { root + "/.lock" }

    /// Creates `path` and its parents; failure is `FileError.cannotCreate`.
    public static func makeDirectory(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw FileError.cannotCreate(path: path, reason: (error as NSError).localizedDescription)
        }
    }
}
