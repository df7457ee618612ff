import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// A file's content hash, with the `stat` facts that let a later check skip rehashing: trusted
/// only when size, mtime, ctime and inode all match (a user cannot set `ctime`, so a file whose
/// mtime was put back is still rehashed).
public struct FileStamp: Codable, Sendable, Equatable {
    /// As the config declares it (`parsed.ndjson.gz`, `{csv}`).
    public var name: String
    public var sha256: String
    public var size: Int64
    public var mtimeNs: Int64
    public var ctimeNs: Int64
    public var inode: UInt64

    /// A declared input that does not exist (no review decisions yet).
    public static func absent(_ name: String) -> FileStamp {
        FileStamp(name: name, sha256: "absent", size: -1, mtimeNs: 0, ctimeNs: 0, inode: 0)
    }

    /// Reuses `previous`'s hash when the stat facts are unchanged; nil when the file does not exist.
    public static func make(name: String, path: String, previous: FileStamp?) throws -> FileStamp? {
        guard var stamp = make(name: name, path: path, sha256: "") else { return nil }
        if let previous, previous.sameFile(as: stamp), previous.sha256 != "absent" {
            stamp.sha256 = previous.sha256
        } else {
            stamp.sha256 = try ContentHash.file(path)
        }
        return stamp
    }

    func sameFile(as other: FileStamp?) -> Bool {
        guard let other else { return false }
        return size == other.size && mtimeNs == other.mtimeNs && ctimeNs == other.ctimeNs && inode == other.inode
    }

    /// With a hash the caller has just taken (while writing the file).
    static func make(name: String, path: String, sha256: String) -> FileStamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let mtime = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        let ctime = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
        return FileStamp(
            name: name, sha256: sha256, size: Int64(info.st_size), mtimeNs: mtime, ctimeNs: ctime,
            inode: UInt64(info.st_ino))
    }
}

/// Written last, after a stage's outputs are published: proof that the stage completed for exactly
/// these inputs, parameters and algorithm version.
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
    /// The workspace files the stage writes as they were before it ran: with `outputs`, one step of
    /// the library's lineage (`StagePlanner.descends`). Absent in older manifests.
    public var workspaceBefore: [FileStamp]?

    public static func fingerprint(stage: Stage, parametersHash: String, inputs: [FileStamp]) -> String {
        var text = "stage=\(stage.name.rawValue)\nversion=\(stage.algorithmVersion)\nparameters=\(parametersHash)\n"
        for input in inputs { text += "input \(input.name)=\(input.sha256)\n" }
        return ContentHash.string(text)
    }
}
