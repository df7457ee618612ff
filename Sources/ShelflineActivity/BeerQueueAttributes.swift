import Foundation

/// Mirror of the app's `BeerQueueAttributes` (an `ActivityAttributes` on iOS).
public struct BeerQueueAttributes: Codable, Hashable, Sendable {
    /// Mirror of the app's `BeerQueueAttributes.ContentState`.
    public struct ContentState: Codable, Hashable, Sendable {
        /// All queued beers, not just the ones listed.
        public var queueCount: Int
        /// The first few beers in queue order.
        public var beers: [QueuedBeer]
        public var storeLocation: String
        public var lastUpdated: String

        public init(queueCount: Int, beers: [QueuedBeer], storeLocation: String, lastUpdated: String) {
            self.queueCount = queueCount
            self.beers = beers
            self.storeLocation = storeLocation
            self.lastUpdated = lastUpdated
        }
    }

    public var memberId: String
    public var storeId: String

    public init(memberId: String, storeId: String) {
        self.memberId = memberId
        self.storeId = storeId
    }

    /// The `attributes-type` APNs expects for a push-to-start.
    public static let typeName = "BeerQueueAttributes"
}

/// Mirror of the app's `QueuedBeer`: one entry of the member's queue.
public struct QueuedBeer: Codable, Hashable, Sendable {
    /// The site's entry id (the `cid` of its delete link).
    public let id: String
    /// Display name, container label removed.
    public let name: String
    /// When it was queued, as the site shows it (`Apr 08, 2025 @ 03:10:18pm`, no time zone).
    public let date: String

    public init(id: String, name: String, date: String) {
        self.id = id
        self.name = name
        self.date = date
    }
}
