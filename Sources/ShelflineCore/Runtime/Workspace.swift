import Foundation

/// The paths inside a workspace (`--workspace`, `SHELFLINE_WORKSPACE`, or `./var`).
public struct Workspace: Sendable, Equatable {
    public var root: String

    public init(root: String) { self.root = root }

    /// The one workspace resolver: `--workspace`, else `SHELFLINE_WORKSPACE`, else the config's,
    /// else `./var`; `~` expanded, made absolute, so every command and stage gets the same path.
    /// With the working directory gone (nil), a relative one is 73, never a path under `/`.
    public static func resolve(
        flag: String?, environment: [String: String], config: PipelineConfig?,
        currentDirectory: String?
    ) throws -> Workspace {
        let given = flag ?? environment["SHELFLINE_WORKSPACE"] ?? config?.workspace ?? "./var"
        return Workspace(
            root: try absolute(expandingTilde(given, home: environment["HOME"]), in: currentDirectory, role: .output))
    }

    /// `~` and `~/…` with `home` (the password database's entry when it is unset), `~user/…` by
    /// the password database.
    public static func expandingTilde(_ path: String, home: String?) -> String {
        guard path.hasPrefix("~") else { return path }
        if path == "~" || path.hasPrefix("~/"), let home, !home.isEmpty {
            return (home.hasSuffix("/") && path != "~" ? String(home.dropLast()) : home) + path.dropFirst()
        }
        return (path as NSString).expandingTildeInPath
    }

    /// Decides the status of a path that cannot be resolved: an input 66, an output or workspace 73.
    public enum PathRole: Sendable { case input, output }

    /// `path` made absolute against the working directory; a relative one when that is gone (deleted
    /// while this process or its parent was in it) is an error naming the cause, never under `/`.
    public static func absolute(_ path: String, role: PathRole) throws -> String {
        try absolute(path, in: path.hasPrefix("/") ? nil : currentDirectory(), role: role)
    }

    /// Joined and standardised (`<directory>/var`, not `<directory>/./var`, in every path shown to
    /// the user); nil `directory` (the working directory is gone) is an error for a relative path.
    public static func absolute(_ path: String, in directory: String?, role: PathRole) throws -> String {
        if path.hasPrefix("/") { return path }
        guard let directory else {
            let reason =
                "a relative path, and the working directory no longer exists (\(currentDirectoryFailure)); "
                + "cd to an existing directory or give an absolute path"
            switch role {
            case .input: throw FileError.missingInput(path: path, reason: reason)
            case .output: throw FileError.cannotCreate(path: path, reason: reason)
            }
        }
        return ((directory + "/" + path) as NSString).standardizingPath
    }

    /// Nil when `getcwd` fails (the directory was removed: Foundation's `currentDirectoryPath`
    /// then answers "", which would put `./var` at `/var`).
    public static func currentDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil, buffer[0] == CChar(UInt8(ascii: "/")) else { return nil }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    static var currentDirectoryFailure: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        return getcwd(&buffer, buffer.count) == nil ? "getcwd: \(systemErrorMessage())" : "getcwd: not an absolute path"
    }

    /// 66 when the root exists but is not a directory or cannot be looked at: a command that only
    /// reads the workspace must not take it for an empty one. A missing root passes.
    public func checkReadable() throws {
        var info = stat()
        if stat(root, &info) != 0 {
            guard errno != ENOENT else { return }
            throw FileError.missingInput(path: root, reason: "cannot read the workspace: \(systemErrorMessage())")
        }
        if (info.st_mode & S_IFMT) != S_IFDIR {
            let what = (info.st_mode & S_IFMT) == S_IFREG ? "a regular file" : "not a directory"
            throw FileError.missingInput(path: root, reason: "the workspace is \(what); choose another --workspace")
        }
    }

    public var libraryDirectory: String { root + "/library" }
    public var libraryFile: String { libraryDirectory + "/library.ndjson.gz" }
    /// Kept on every write.
    public var libraryBackup: String { libraryDirectory + "/library.previous.ndjson.gz" }
    public var decisionsFile: String { libraryDirectory + "/decisions.json" }

    /// The workspace file a stage description names `{library}` or `{decisions}`; nil for any other name.
    public func file(named placeholder: String) -> String? {
        switch placeholder {
        case "{library}": libraryFile
        case "{decisions}": decisionsFile
        default: nil
        }
    }
    public var runsDirectory: String { root + "/runs" }
    public var cacheDirectory: String { root + "/cache" }
    public var activityDirectory: String { root + "/activity" }
    public var lockFile: String { root + "/.lock" }

    /// Creates `path` and its parents; failure (73) names the component in the way and what it is.
    public static func makeDirectory(_ path: String) throws {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + component
            let shown = path.hasPrefix("/") ? prefix : String(prefix.dropFirst(2))
            var info = stat()
            if stat(prefix, &info) == 0 {
                if (info.st_mode & S_IFMT) == S_IFDIR { continue }
                let what = (info.st_mode & S_IFMT) == S_IFREG ? "a regular file" : "not a directory"
                throw FileError.cannotCreate(
                    path: path,
                    reason: "\(shown) is \(what), not a directory; "
                        + (shown == path
                            ? "choose another --workspace or remove it" : "move it away or choose another --workspace"))
            }
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw FileError.cannotCreate(path: path, reason: "cannot create directory \(shown): \(systemErrorMessage())")
            }
        }
    }
}
