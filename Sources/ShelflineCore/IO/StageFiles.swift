import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one check every stage makes on its command line's files before it reads or writes anything:
/// no output may be an input or another output, no output may replace something that is not a
/// regular file, and no input may be a FIFO, device or socket (reading one blocks or never ends).
///
/// Files are compared by device and inode when they exist (so hard links, symlinks and `./x` vs
/// `x` are caught), else by their resolved path (the directory through `realpath`, symlinks
/// included, plus the name).
public enum StageFiles {
    /// The file `name` in the directory of `path` (`name` alone when `path` has no directory): where
    /// a stage's file that goes beside another is (parse's texts beside its records, merge's
    /// `not-enriched.csv` beside its failed rows, a report's files beside the report).
    public static func beside(_ path: String, named name: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        return directory.isEmpty ? name : directory + "/" + name
    }

    /// Throws `UsageError` (64) naming both paths when two of the files are the same,
    /// `FileError.cannotCreate` (73) for an output that exists and is not a regular file (a
    /// symlink is followed), `FileError.missingInput` (66) for an input that is not a regular file
    /// or a directory (a missing input or a directory is left to the stage, which says more).
    /// `nil` entries (options not given) are skipped.
    /// A relative path while the working directory is gone is 66 (input) or 73 (output) naming
    /// the cause (`Workspace.absolute(_:role:)`).
    public static func check(inputs: [String?], outputs: [String?]) throws {
        let inputs = inputs.compactMap { $0 }, outputs = outputs.compactMap { $0 }
        for input in inputs { _ = try Workspace.absolute(input, role: .input) }
        for output in outputs { _ = try Workspace.absolute(output, role: .output) }
        for input in inputs {
            var info = stat()
            guard stat(input, &info) == 0 else { continue }
            let kind = info.st_mode & S_IFMT
            if kind != S_IFREG && kind != S_IFDIR {
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

    /// Throws `FileError.cannotCreate` (73) when `path` exists and is not a regular file (following
    /// a symlink): replacing a device node, a FIFO or a directory is never what the user meant.
    public static func refuseNonRegular(_ path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        let kind = info.st_mode & S_IFMT
        if kind != S_IFREG {
            throw FileError.cannotCreate(path: path, reason: "\(describe(kind)), not a regular file; refusing to replace it")
        }
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

    /// What makes two paths the same file.
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

        /// The directory through `realpath` (symlinks and `..` resolved) plus the last component;
        /// when the directory does not exist either, the path standardised as text.
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
