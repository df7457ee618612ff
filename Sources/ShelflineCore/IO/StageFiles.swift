import Foundation

/// The one check every stage makes on its files before it reads or writes anything: no output may
/// be an input or another output or replace what is not a regular file, and no input may be a FIFO,
/// device or socket (reading one blocks or never ends). Files are compared by device and inode
/// (hard links, symlinks, `./x` vs `x`), else by the path with its directory through `realpath`.
public enum StageFiles {
    /// The file `name` in the directory of `path`.
    public static func beside(_ path: String, named name: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        return directory.isEmpty ? name : directory + "/" + name
    }

    /// 64 naming both paths when two files are one, 73 for an output that is not a regular file,
    /// 66 for an input that is neither a regular file nor a directory (a missing input or a
    /// directory is left to the stage, which says more). Nil entries are options not given.
    public static func check(inputs: [String?], outputs: [String?]) throws {
        let inputs = inputs.compactMap { $0 }, outputs = outputs.compactMap { $0 }
        for input in inputs { _ = try Workspace.absolute(input, role: .input) }
        for output in outputs { _ = try Workspace.absolute(output, role: .output) }
        for input in inputs {
            if let kind = kind(of: input), kind != S_IFREG && kind != S_IFDIR {
                throw FileError.missingInput(path: input, reason: "\(describe(kind)), not a regular file")
            }
        }
        for output in outputs { try refuseNonRegular(output) }
        var seen: [(path: String, identity: Identity, isOutput: Bool)] = []
        for (path, isOutput) in inputs.map({ ($0, false) }) + outputs.map({ ($0, true) }) {
            let identity = Identity(path)
            if let earlier = seen.first(where: { $0.identity == identity && ($0.isOutput || isOutput) }) {
                let why = earlier.isOutput && isOutput ? "two outputs cannot be one file" : "an output would overwrite an input"
                throw UsageError("\(earlier.path) and \(path) are the same file: \(why); choose another output path")
            }
            seen.append((path, identity, isOutput))
        }
    }

    /// 73 when `path` exists and is not a regular file: replacing one is never what the user meant.
    public static func refuseNonRegular(_ path: String) throws {
        if let kind = kind(of: path), kind != S_IFREG {
            throw FileError.cannotCreate(path: path, reason: "\(describe(kind)), not a regular file; refusing to replace it")
        }
    }

    /// Nil when `path` cannot be looked at (following a symlink).
    static func kind(of path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    static func describe(_ kind: mode_t) -> String {
        switch kind {
        case S_IFDIR: "is a directory"
        case S_IFIFO: "is a FIFO (named pipe)"
        case S_IFCHR, S_IFBLK: "is a device"
        case S_IFSOCK: "is a socket"
        case S_IFLNK: "is a symbolic link"
        default: "is a special file"
        }
    }

    enum Identity: Equatable {
        case inode(device: UInt64, inode: UInt64)
        case path(String)

        init(_ path: String) {
            var info = stat()
            if stat(path, &info) == 0 {
                self = .inode(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
                return
            }
            self = .path(Self.resolved(path))
        }

        /// The path standardised as text when its directory does not exist either.
        static func resolved(_ path: String) -> String {
            // `check` refused a relative path when the working directory is gone.
            let absolute = path.hasPrefix("/") ? path : (Workspace.currentDirectory() ?? ".") + "/" + path
            let directory = (absolute as NSString).deletingLastPathComponent
            let name = (absolute as NSString).lastPathComponent
            guard let real = realpath(directory, nil) else { return (absolute as NSString).standardizingPath }
            defer { free(real) }
            return String(cString: real) + "/" + name
        }
    }
}
