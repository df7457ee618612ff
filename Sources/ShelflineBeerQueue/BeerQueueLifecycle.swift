import ShelflineActivity

/// What one observation of the queue means for the beer-queue Live Activity, decided against the
/// previous snapshot alone (a pure function, so the rules are one table).
public enum BeerQueueLifecycle {
    public static let listedBeers = 5

    /// What the phone shows: the count and the first `listedBeers` beers.
    public struct Display: Hashable, Sendable {
        public var queueCount: Int
        public var beers: [QueuedBeer]
    }

    public enum Previous: Hashable, Sendable {
        case none
        /// The snapshot could not be read (it was set aside): the phone may show anything.
        case unknown
        case ended
        case active(Display, offline: Bool)
    }

    public enum Observation: Hashable, Sendable {
        case queue([QueuedBeer])
        case sessionExpired
        case fetchFailed
    }

    public enum Decision: Hashable, Sendable {
        case nothing
        case start
        /// The content changed (or an offline mark is cleared).
        case update
        /// Keep the last beers, marked offline and stale.
        case markOffline
        case end
        /// End with a generic state and no beer names.
        case endSessionExpired
        /// The hourly budget of periodic updates is spent; the next poll retries.
        case deferred

        /// Spends the periodic-update budget.
        public var isUpdate: Bool { self == .update || self == .markOffline }
    }

    /// `budgetLeft`: a periodic update may still be sent this hour; user-triggered ones are not limited.
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

extension BeerQueueLifecycle.Observation {
    /// Every text of a queue's beers through `transform`.
    func mapTexts(_ transform: (String) -> String) -> Self {
        guard case .queue(let beers) = self else { return self }
        return .queue(beers.map { QueuedBeer(id: transform($0.id), name: transform($0.name), date: transform($0.date)) })
    }
}

extension BeerQueueLifecycle.Display {
    public init(queue: [QueuedBeer]) {
        self.init(queueCount: queue.count, beers: Array(queue.prefix(BeerQueueLifecycle.listedBeers)))
    }
}
