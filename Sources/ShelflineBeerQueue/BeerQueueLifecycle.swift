import ShelflineActivity

/// What one observation of the queue means for the beer-queue Live Activity, decided against the
/// previous snapshot alone (a pure function, so the rules are one table).
public enum BeerQueueLifecycle {
    /// How many beers the activity lists.
    public static let listedBeers = 5

    /// What the phone shows: the count and the first `listedBeers` beers.
    public struct Display: Hashable, Sendable {
        public var queueCount: Int
        public var beers: [QueuedBeer]
    }

    /// The state the previous snapshot left.
    public enum Previous: Hashable, Sendable {
        /// No snapshot yet.
        case none
        /// The snapshot could not be read (it was set aside): the phone may show anything.
        case unknown
        /// The last snapshot was an `end`.
        case ended
        /// A running activity showing `display`; `offline` when the last fetch failed.
        case active(Display, offline: Bool)
    }

    /// What was observed now.
    public enum Observation: Hashable, Sendable {
        case queue([QueuedBeer])
        case sessionExpired
        /// The page could not be fetched or read.
        case fetchFailed
    }

    public enum Decision: Hashable, Sendable {
        /// Nothing new to emit.
        case nothing
        case start
        /// The content changed (or an offline mark is cleared).
        case update
        /// Keep the last beers, mark them offline and stale.
        case markOffline
        /// The queue became empty: end now.
        case end
        /// The session expired: end with a generic state and no beer names.
        case endSessionExpired
        /// An update was due but the hourly budget of periodic updates is spent; the next poll retries.
        case deferred

        /// True for decisions that spend the periodic-update budget.
        public var isUpdate: Bool { self == .update || self == .markOffline }
    }

    /// The decision for `observation` after `previous`. `budgetLeft` says whether a periodic
    /// update may still be sent this hour; user-triggered refreshes are not limited.
    public static func decide(previous: Previous, observation: Observation, budgetLeft: Bool, userTriggered: Bool) -> Decision {
        let decision: Decision
        switch (previous, observation) {
        case (.active, .queue(let queue)) where queue.isEmpty: decision = .end
        // Unknown: restate the truth — start with the beers, end an activity the phone may still show.
        case (.unknown, .queue(let queue)): decision = queue.isEmpty ? .end : .start
        case (.unknown, .sessionExpired): decision = .endSessionExpired
        case (_, .queue(let queue)) where queue.isEmpty: decision = .nothing
        case (.none, .queue), (.ended, .queue): decision = .start
        case (.active(let display, let offline), .queue(let queue)):
            decision = Display(queue: queue) == display && !offline ? .nothing : .update
        case (.active, .sessionExpired): decision = .endSessionExpired
        case (_, .sessionExpired): decision = .nothing
        case (.active(_, offline: false), .fetchFailed): decision = .markOffline
        case (_, .fetchFailed): decision = .nothing
        }
        if decision.isUpdate && !userTriggered && !budgetLeft { return .deferred }
        return decision
    }
}

extension BeerQueueLifecycle.Display {
    public init(queue: [QueuedBeer]) {
        self.init(queueCount: queue.count, beers: Array(queue.prefix(BeerQueueLifecycle.listedBeers)))
    }
}
