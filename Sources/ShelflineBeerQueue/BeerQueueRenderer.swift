import Foundation
import ShelflineActivity
import ShelflineCore

/// The beer-queue Live Activity: decides (`BeerQueueLifecycle`) and publishes the snapshot, its
/// history and the hourly update budget.
public struct BeerQueueRenderer: Sendable {
    public typealias State = BeerQueueAttributes.ContentState
    public typealias Snapshot = ActivitySnapshot<BeerQueueAttributes, State>

    public static let sessionExpiredText = "Please open app to refresh"
    public static let defaultMaxUpdatesPerHour = 10
    public static let defaultStaleAfterMinutes = 15

    public var workspace: Workspace
    public var attributes: BeerQueueAttributes
    public var storeLocation: String
    public var maxUpdatesPerHour = BeerQueueRenderer.defaultMaxUpdatesPerHour
    public var staleAfterMinutes = BeerQueueRenderer.defaultStaleAfterMinutes
    public var historyLimit = ActivityStore.defaultHistoryLimit

    public var store: ActivityStore { ActivityStore(workspace: workspace, name: "beer-queue", historyLimit: historyLimit) }
    public var budgetPath: String { workspace.activityDirectory + "/beer-queue.budget.json" }
    /// `BeerQueueReport`.
    public var reportPath: String { workspace.activityDirectory + "/beer-queue.report.json" }

    /// A state file that could not be read, moved out of the way so the run could rebuild it.
    public struct SetAside: Sendable, Equatable {
        public var original: String
        public var movedTo: String
        public var reason: String
    }

    public struct Outcome: Sendable, Equatable {
        public var decision: BeerQueueLifecycle.Decision
        /// The snapshot published, if any.
        public var snapshot: Snapshot?
        /// For the caller to log once.
        public var setAside: [SetAside] = []
    }

    @discardableResult
    public func render(_ observation: BeerQueueLifecycle.Observation, now: Date, userTriggered: Bool) throws -> Outcome {
        try store.withLock { try renderLocked(observation, now: now, userTriggered: userTriggered) }
    }

    func renderLocked(_ observation: BeerQueueLifecycle.Observation, now: Date, userTriggered: Bool) throws -> Outcome {
        // Compared and published as the snapshot will show them, whatever the source let through.
        let observation = observation.mapTexts(SnapshotText.clean)
        var setAside: [SetAside] = []
        // A state file that does not decode never stops the activity: it is set aside and rebuilt.
        func readable<T>(_ path: String, _ read: () throws -> T) throws -> T? {
            do {
                return try read()
            } catch let error as FileError {
                guard case .corrupt = error else { throw error }
                let reason = "\(error)".replacingOccurrences(of: path + ": ", with: "")
                setAside.append(SetAside(original: path, movedTo: try CorruptFile.setAside(path, now: now), reason: reason))
                return nil
            }
        }
        let snapshotReadable = try readable(store.snapshotPath) { try store.latest(Snapshot.self) }
        _ = try readable(store.historyPath) { try store.history(Snapshot.self) }
        let previousSnapshot = snapshotReadable ?? nil
        let previous: BeerQueueLifecycle.Previous =
            switch previousSnapshot {
            case nil: snapshotReadable == nil ? .unknown : .none
            case let snapshot? where snapshot.event == .end: .ended
            case let snapshot?:
                .active(
                    BeerQueueLifecycle.Display(queueCount: snapshot.contentState.queueCount, beers: snapshot.contentState.beers),
                    offline: snapshot.offline == true)
            }
        var budget = try readable(budgetPath) { try readBudget(now: now) } ?? []
        if budget.contains(unixSeconds(now)), FileManager.default.fileExists(atPath: budgetPath) {
            // Clamped times are written back, so they age from now rather than from the future.
            try writeJSONFile(BudgetFile(periodicUpdates: budget), to: budgetPath)
        }
        let decision = BeerQueueLifecycle.decide(
            previous: previous, observation: observation, budgetLeft: budget.count < maxUpdatesPerHour,
            userTriggered: userTriggered)

        // Timestamps never go backwards, whatever the clock did (a new activity after an `end` starts afresh).
        let timestamp = activityTimestamp(now, notBefore: previousSnapshot.flatMap { $0.event == .end ? nil : $0.timestamp })
        let lastUpdated = Self.lastUpdatedText(now)
        let snapshot: Snapshot? =
            switch (decision, observation) {
            case (.start, .queue(let queue)), (.update, .queue(let queue)):
                makeSnapshot(
                    decision == .start ? .start : .update, queue: queue, lastUpdated: lastUpdated,
                    timestamp: timestamp, staleDate: timestamp + staleAfterMinutes * 60)
            case (.end, _):
                makeSnapshot(.end, queue: [], lastUpdated: lastUpdated, timestamp: timestamp, staleDate: nil)
            case (.endSessionExpired, _):
                makeSnapshot(
                    .end, queue: [], lastUpdated: Self.sessionExpiredText, timestamp: timestamp, staleDate: nil,
                    alert: PushAlert(title: "Beer queue", body: Self.sessionExpiredText))
            case (.markOffline, _):
                // The last known beers, stale from now on.
                previousSnapshot.map { last in
                    fitted(
                        event: .update, state: last.contentState, timestamp: timestamp, staleDate: timestamp, offline: true,
                        alert: nil)
                }
            default: nil
            }
        if let snapshot {
            try store.publish(snapshot)
            if decision.isUpdate && !userTriggered {
                budget.append(timestamp)
                try writeJSONFile(BudgetFile(periodicUpdates: budget), to: budgetPath)
            }
        }
        return Outcome(decision: decision, snapshot: snapshot, setAside: setAside)
    }

    /// ISO 8601 UTC, which the app can parse and format locally.
    public static func lastUpdatedText(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    func makeSnapshot(
        _ event: ActivityEvent, queue: [QueuedBeer], lastUpdated: String, timestamp: Int, staleDate: Int?,
        alert: PushAlert? = nil
    ) -> Snapshot {
        let display = BeerQueueLifecycle.Display(queue: queue)
        let state = State(
            queueCount: display.queueCount, beers: display.beers, storeLocation: storeLocation, lastUpdated: lastUpdated)
        var alert = alert
        if event == .start && alert == nil {
            let where_ = storeLocation.isEmpty ? "" : " at \(storeLocation)"
            alert = PushAlert(
                title: "Beer queue", body: "\(display.queueCount) beer\(display.queueCount == 1 ? "" : "s") queued\(where_)")
        }
        return fitted(event: event, state: state, timestamp: timestamp, staleDate: staleDate, offline: nil, alert: alert)
    }

    /// The snapshot with its push body within 4096 bytes: long names shortened, then beers dropped
    /// from the end, then every text shortened. Never fails.
    func fitted(
        event: ActivityEvent, state: State, timestamp: Int, staleDate: Int?, offline: Bool?, alert: PushAlert?
    ) -> Snapshot {
        func build(beers: Int, textLimit: Int) -> Snapshot {
            // Every text is cleaned here, whatever its source.
            func text(_ value: String, _ limit: Int) -> String { SnapshotText.clean(value).truncated(toCharacters: limit) }
            var state = state
            state.beers = state.beers.prefix(beers).map {
                QueuedBeer(
                    id: text($0.id, max(textLimit, 24)), name: text($0.name, textLimit), date: text($0.date, max(textLimit, 32)))
            }
            state.storeLocation = text(state.storeLocation, max(textLimit, 16))
            state.lastUpdated = text(state.lastUpdated, max(textLimit, 32))
            var attributes = attributes
            attributes.memberId = text(attributes.memberId, max(textLimit, 64))
            attributes.storeId = text(attributes.storeId, max(textLimit, 64))
            let alert = alert.map {
                PushAlert(title: text($0.title, max(textLimit, 40)), body: text($0.body, max(textLimit, 80)))
            }
            return Snapshot(
                attributesType: BeerQueueAttributes.typeName, attributes: attributes, contentState: state, event: event,
                timestamp: timestamp, staleDate: staleDate, dismissalDate: event == .end ? timestamp : nil,
                alert: alert, offline: offline)
        }
        func fits(_ snapshot: Snapshot) -> Bool {
            (try? snapshot.pushBodySize()).map { $0 <= ShelflineActivity.maximumPushBodyBytes } ?? false
        }
        let all = state.beers.count
        var candidate = build(beers: all, textLimit: Int.max)
        let attempts = (0...all).reversed().map { ($0, 160) } + PushBodyFitting.textLimits.dropFirst(2).map { (0, $0) }
        for (beers, textLimit) in attempts {
            if fits(candidate) { break }
            candidate = build(beers: beers, textLimit: textLimit)
        }
        return candidate
    }

    struct BudgetFile: Codable {
        /// Unix seconds of the periodic updates sent in the last hour.
        var periodicUpdates: [Int]
    }

    func readBudget(now: Date) throws -> [Int] {
        guard FileManager.default.fileExists(atPath: budgetPath) else { return [] }
        let nowSeconds = unixSeconds(now)
        // A time after now (the clock went back) counts as now: it holds updates back an hour at most.
        return try readJSONFile(BudgetFile.self, from: budgetPath).periodicUpdates
            .map { min($0, nowSeconds) }.filter { $0 > nowSeconds - 3600 }.sorted()
    }
}

// In an extension, so the memberwise initializer stays. Public for the `html` fuzz target.
extension BeerQueueRenderer {
    public init(workspace: Workspace, attributes: BeerQueueAttributes, storeLocation: String) {
        self.workspace = workspace
        self.attributes = attributes
        self.storeLocation = storeLocation
    }
}
