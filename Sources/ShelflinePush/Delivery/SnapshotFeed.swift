import Foundation
import ShelflineActivity
import ShelflineCore

/// One snapshot render emitted, ready to post.
public struct FeedEntry: Sendable, Equatable {
    public var id: SnapshotID
    public var event: ActivityEvent
    /// Exactly as render built it (compact, sorted keys).
    public var body: Data
    /// 10 for what the member should see at once (start, end, an alert, a changed beer list), else 5.
    public var priority: Int
    /// Unix seconds: the stale date, else the dismissal date, else an hour.
    public var expiration: Int

    public func fits(_ kind: TokenKind) -> Bool {
        switch kind {
        case .start: event == .start
        case .update: event == .update || event == .end
        }
    }
}

/// `<workspace>/activity/<name>.history.ndjson`: the snapshots render emitted, oldest first.
public struct SnapshotFeed: Sendable {
    public var activity: PushActivity
    public var entries: [FeedEntry]

    /// A line that does not decode is an error and nothing is sent: no token skips a state or reorders them.
    public init(workspace: Workspace, activity: PushActivity) throws {
        self.activity = activity
        let path = ActivityStore(workspace: workspace, name: activity.rawValue).historyPath
        let data = FileManager.default.contents(atPath: path) ?? Data()
        switch activity {
        case .import:
            entries = try Self.decode(
                data, path: path, as: ActivitySnapshot<CSVImportActivityAttributes, CSVImportActivityAttributes.ContentState>.self
            ) { _, _ in false }
        case .beerQueue:
            entries = try Self.decode(
                data, path: path, as: ActivitySnapshot<BeerQueueAttributes, BeerQueueAttributes.ContentState>.self
            ) {
                previous, current in
                previous.queueCount != current.queueCount || previous.beers != current.beers
            }
        }
    }

    /// `changed(previous, current)`: a content change the member should see at once.
    static func decode<A, S>(
        _ data: Data, path: String, as type: ActivitySnapshot<A, S>.Type,
        changed: (S, S) -> Bool
    ) throws -> [FeedEntry] {
        var result: [FeedEntry] = []
        var previous: S?
        let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() where !line.isEmpty {
            let snapshot: ActivitySnapshot<A, S>
            do {
                snapshot = try JSONDecoder().decode(type, from: line)
            } catch {
                let torn = index == lines.count - 1 ? " (torn last line: the file was cut short)" : ""
                throw FileError.corrupt(path: path, line: index + 1, reason: "not a valid snapshot\(torn); nothing was sent")
            }
            let aps = snapshot.apns.aps
            let urgent = aps.event != .update || aps.alert != nil || previous.map { changed($0, snapshot.contentState) } == true
            result.append(
                FeedEntry(
                    id: SnapshotID(timestamp: snapshot.timestamp, digest: String(ContentHash.bytes(line).prefix(24))),
                    event: aps.event,
                    body: try snapshot.apns.encoded(), priority: urgent ? 10 : 5,
                    expiration: aps.staleDate ?? aps.dismissalDate ?? snapshot.timestamp + 3600))
            previous = snapshot.contentState
        }
        return result
    }

    /// The last start with no end after it, if any.
    public var runningStart: FeedEntry? {
        guard let last = entries.last(where: { $0.event != .update }), last.event == .start else { return nil }
        return last
    }

    /// The snapshots after `cursor` (a new token: the latest only; the cursor's trimmed from the
    /// history: those with a later timestamp), and the cursor to record once all are dealt with.
    public func pending(after cursor: Cursor?) -> (entries: ArraySlice<FeedEntry>, last: SnapshotID?) {
        guard let lastEntry = entries.last else { return ([], cursor?.last) }
        guard let cursor, cursor.activity == activity else { return (entries.suffix(1), lastEntry.id) }
        if let index = entries.lastIndex(where: { $0.id == cursor.last }) {
            return (entries[(index + 1)...], lastEntry.id)
        }
        let index = entries.firstIndex { $0.id.timestamp > cursor.last.timestamp } ?? entries.endIndex
        return (entries[index...], index == entries.endIndex ? cursor.last : lastEntry.id)
    }
}
