import Foundation

/// Mirror of the app's `CSVImportActivityAttributes` (an `ActivityAttributes` on iOS).
///
/// Property names and types match the app's struct exactly, so the synthesized `Codable` gives the
/// JSON a default `JSONDecoder` on the phone expects.
public struct CSVImportActivityAttributes: Codable, Hashable, Sendable {
    /// Mirror of the app's `CSVImportActivityAttributes.ContentState`.
    public struct ContentState: Codable, Hashable, Sendable {
        /// 0.0 ... 1.0
        public var progress: Double
        /// e.g. "Looking up books…"
        public var currentStep: String
        public var booksProcessed: Int
        public var totalBooks: Int
        public var successCount: Int
        public var duplicateCount: Int
        public var failureCount: Int
        public var currentBookTitle: String?
        public var currentBookAuthor: String?

        public init(progress: Double, currentStep: String, booksProcessed: Int, totalBooks: Int, successCount: Int,
                    duplicateCount: Int, failureCount: Int, currentBookTitle: String? = nil, currentBookAuthor: String? = nil) {
            self.progress = progress
            self.currentStep = currentStep
            self.booksProcessed = booksProcessed
            self.totalBooks = totalBooks
            self.successCount = successCount
            self.duplicateCount = duplicateCount
            self.failureCount = failureCount
            self.currentBookTitle = currentBookTitle
            self.currentBookAuthor = currentBookAuthor
        }
    }

    public var fileName: String
    public var sessionId: UUID
    public var fileSize: Int64?
    public var estimatedDuration: TimeInterval?

    public init(fileName: String, sessionId: UUID, fileSize: Int64? = nil, estimatedDuration: TimeInterval? = nil) {
        self.fileName = fileName
        self.sessionId = sessionId
        self.fileSize = fileSize
        self.estimatedDuration = estimatedDuration
    }

    /// The `attributes-type` APNs expects for a push-to-start.
    public static let typeName = "CSVImportActivityAttributes"
}

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
