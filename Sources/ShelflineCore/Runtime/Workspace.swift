#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The paths inside a workspace (`--workspace`, `SHELFLINE_WORKSPACE`, or `./var`).
public struct Workspace: Sendable, Equatable {
    public var root: String

    public init(root: String) { self.root = root }

    /// The one workspace resolver: `--workspace`, else `SHELFLINE_WORKSPACE`, else the config's
    /// `workspace`, else `./var`; `~` and `~/…` are the home directory (`HOME`), `~user/…` that
    /// user's; a relative path is made absolute against `currentDirectory`. Every command, and
    /// every stage a run starts, gets the same absolute path (`StageContext.workspace`).
    public static func resolve(flag: String?, environment: [String: String], config: PipelineConfig?,
                               currentDirectory: String) -> Workspace {
        let given = flag ?? environment["SHELFLINE_WORKSPACE"] ?? config?.workspace ?? "./var"
        return Workspace(root: absolute(expandingTilde(given, home: environment["HOME"]), in: currentDirectory))
    }

    /// `~` and `~/…` with `home` (the password database's entry when it is unset), `~user/…` by
    /// the password database; any other path unchanged.
    public static func expandingTilde(_ path: String, home: String?) -> String {
        guard path.hasPrefix("~") else { return path }
        if path == "~" || path.hasPrefix("~/"), let home, !home.isEmpty {
            return (home.hasSuffix("/") && path != "~" ? String(home.dropLast()) : home) + path.dropFirst()
        }
        return (path as NSString).expandingTildeInPath
    }

    /// `path` unchanged when absolute, else joined to `directory` and standardised (`./var` is
    /// `<directory>/var`, not `<directory>/./var`, in every path shown to the user).
    public static func absolute(_ path: String, in directory: String) -> String {
        if path.hasPrefix("/") { return path }
        return ((directory + "/" + path) as NSString).standardizingPath
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

    /// Creates `path` and its parents; failure is `FileError.cannotCreate` naming the component
    /// that is in the way and what is wrong with it (e.g. a regular file where a directory must be).
    public static func makeDirectory(_ path: String) throws {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + component
            var info = stat()
            if stat(prefix, &info) == 0 {
                if (info.st_mode & S_IFMT) == S_IFDIR { continue }
                let what = (info.st_mode & S_IFMT) == S_IFREG ? "a regular file" : "not a directory"
                let shown = path.hasPrefix("/") ? prefix : String(prefix.dropFirst(2))
                throw FileError.cannotCreate(path: path, reason: "\(shown) is \(what), not a directory; "
                    + (shown == path ? "choose another --workspace or remove it" : "move it away or choose another --workspace"))
            }
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                let reason = systemErrorMessage()
                let shown = path.hasPrefix("/") ? prefix : String(prefix.dropFirst(2))
                throw FileError.cannotCreate(path: path, reason: "cannot create directory \(shown): \(reason)")
            }
        }
    }
}
