import Foundation
import ShelflineCore

/// What one run directory says about an import so far: whichever of the stage reports exist.
///
/// Reports are written atomically by their stages, so a file either is complete or absent. Reports
/// whose exact shape belongs to another stage (dedupe, lookup) are read tolerantly: only the
/// counts named below are looked up, at any depth.
public struct ImportRunStatus: Sendable, Equatable {
    public var runDirectory: String
    public var parse: ParseReport?
    /// `duplicateInFile` from `dedupe-report.json`, when dedupe has finished.
    public var dedupeDuplicates: Int?
    public var dedupeFinished: Bool
    public var lookupProgress: StageProgress?
    /// True once `lookup-report.json` exists.
    public var lookupFinished: Bool
    /// `notEnriched` from the lookup report, when it has one.
    public var lookupNotEnriched: Int?
    public var merge: MergeReport?
    /// `merge-progress.json` while merge runs (records resolved, then folded into the library).
    public var mergeProgress: StageProgress?

    public static let parseReportName = "parse-report.json"
    public static let dedupeReportName = "dedupe-report.json"
    public static let lookupProgressName = "lookup-progress.json"
    public static let lookupReportName = "lookup-report.json"
    public static let mergeReportName = "merge-report.json"
    public static let mergeProgressName = "merge-progress.json"

    public init(runDirectory: String, parse: ParseReport? = nil, dedupeDuplicates: Int? = nil, dedupeFinished: Bool = false,
                lookupProgress: StageProgress? = nil, lookupFinished: Bool = false, lookupNotEnriched: Int? = nil,
                merge: MergeReport? = nil) {
        self.runDirectory = runDirectory
        self.parse = parse
        self.dedupeDuplicates = dedupeDuplicates
        self.dedupeFinished = dedupeFinished
        self.lookupProgress = lookupProgress
        self.lookupFinished = lookupFinished
        self.lookupNotEnriched = lookupNotEnriched
        self.merge = merge
    }

    /// Reads the run directory. A missing directory is `FileError.missingInput`; a report that
    /// exists but does not decode is `FileError.corrupt` naming it.
    public static func read(runDirectory: String) throws -> ImportRunStatus {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: runDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw FileError.missingInput(path: runDirectory, reason: "not a run directory")
        }
        func path(_ name: String) -> String { runDirectory + "/" + name }
        func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }

        var status = ImportRunStatus(runDirectory: runDirectory)
        if exists(parseReportName) {
            status.parse = try readJSONFile(ParseReport.self, from: path(parseReportName))
        }
        if exists(dedupeReportName) {
            let report = try readJSONFile(JSONValue.self, from: path(dedupeReportName))
            status.dedupeFinished = true
            status.dedupeDuplicates = report.firstCount(named: "duplicateInFile")
        }
        if exists(lookupProgressName) {
            status.lookupProgress = try readJSONFile(StageProgress.self, from: path(lookupProgressName))
        }
        if exists(lookupReportName) {
            let report = try readJSONFile(JSONValue.self, from: path(lookupReportName))
            status.lookupFinished = true
            status.lookupNotEnriched = report.firstCount(named: "notEnriched")
        }
        if exists(mergeProgressName) {
            status.mergeProgress = try? readJSONFile(StageProgress.self, from: path(mergeProgressName))
        }
        if exists(mergeReportName) {
            status.merge = try readJSONFile(MergeReport.self, from: path(mergeReportName))
        }
        return status
    }

    /// The imported file's name, from the parse report.
    public var sourcePath: String? { parse?.input }
}

extension JSONValue {
    /// The first whole number stored under `key`, searching objects breadth-first.
    func firstCount(named key: String) -> Int? {
        var queue: [JSONValue] = [self]
        while !queue.isEmpty {
            let value = queue.removeFirst()
            switch value {
            case .object(let object):
                if case .number(let number)? = object[key], number >= 0, number == number.rounded() {
                    return Int(number)
                }
                for child in object.keys.sorted() { queue.append(object[child]!) }
            case .array(let array):
                queue.append(contentsOf: array)
            default:
                break
            }
        }
        return nil
    }
}
