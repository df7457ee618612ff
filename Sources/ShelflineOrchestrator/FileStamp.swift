import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// A file's content hash, with the `stat` facts that let a later check skip rehashing.
///
/// The hash is trusted again only when size, mtime, ctime and inode all match. `ctime` cannot be
/// set by a user, so a changed file whose mtime was put back to an older value is still rehashed,
/// and a `touch` without change rehashes to the same value and reruns nothing.
public struct FileStamp: Codable, Sendable, Equatable {
    /// The name as the config declares it (`parsed.ndjson.gz`, `{csv}`).
    public var name: String
    public var sha256: String
    public var size: Int64
    public var mtimeNs: Int64
    public var ctimeNs: Int64
    public var inode: UInt64

    /// The stamp of a declared input that does not exist (e.g. no review decisions yet).
    public static func absent(_ name: String) -> FileStamp {
        FileStamp(name: name, sha256: "absent", size: -1, mtimeNs: 0, ctimeNs: 0, inode: 0)
    }

    /// Stamps `path`, reusing `previous`'s hash when the file's stat facts are unchanged.
    public static func make(name: String, path: String, previous: FileStamp?) throws -> FileStamp? {
        guard var stamp = statFacts(name: name, path: path) else { return nil }
        if let previous, previous.sameFile(as: stamp), previous.sha256 != "absent" {
            stamp.sha256 = previous.sha256
        } else {
            stamp.sha256 = try ContentHash.file(path)
        }
        return stamp
    }

    /// Whether `other` has this stamp's stat facts (the same file, unchanged since).
    func sameFile(as other: FileStamp?) -> Bool {
        guard let other else { return false }
        return size == other.size && mtimeNs == other.mtimeNs && ctimeNs == other.ctimeNs && inode == other.inode
    }

    /// Stamps `path` with `sha256`, a hash of its bytes the caller has just taken (while writing it).
    static func make(name: String, path: String, sha256: String) -> FileStamp? {
        guard var stamp = statFacts(name: name, path: path) else { return nil }
        stamp.sha256 = sha256
        return stamp
    }

    /// The stat facts of `path`, without a hash; nil when it does not exist.
    private static func statFacts(name: String, path: String) -> FileStamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let mtime = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        let ctime = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
        return FileStamp(
            name: name, sha256: "", size: Int64(info.st_size), mtimeNs: mtime, ctimeNs: ctime,
            inode: UInt64(info.st_ino))
    }
}

/// Written last, after a stage's outputs are published: the proof that the stage completed for
/// exactly these inputs, parameters and algorithm version.
public struct StageManifest: Codable, Sendable, Equatable {
    public var stage: StageName
    public var fingerprint: String
    public var algorithmVersion: Int
    public var parametersHash: String
    public var inputs: [FileStamp]
    public var outputs: [FileStamp]
    public var durationMs: Int
    /// Unix seconds.
    public var finishedAt: Double
    /// The workspace files the stage writes (`StagePlanner.workspaceOutputs`: merge's library) as
    /// they were before it ran: with `outputs`, one step of the library's lineage
    /// (`StagePlanner.descends`). Absent in manifests of older versions.
    public var workspaceBefore: [FileStamp]?

    /// The fingerprint over inputs' content, parameters and algorithm version.
    public static func fingerprint(stage: Stage, parametersHash: String, inputs: [FileStamp]) -> String {
        var text = "stage=\(stage.name.rawValue)\nversion=\(stage.algorithmVersion)\nparameters=\(parametersHash)\n"
        for input in inputs { text += "input \(input.name)=\(input.sha256)\n" }
        return ContentHash.string(text)
    }
}
