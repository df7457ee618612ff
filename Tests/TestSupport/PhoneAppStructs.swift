import Foundation

/// Test-only copies of the iOS app's structs, verbatim from issue 6. Decoding every snapshot with
/// these and a default `JSONDecoder` is the contract the phone relies on. They sit in a namespace
/// so they do not collide with ShelflineRender's own mirrors; in TestSupport so the render and push
/// tests decode with the same copies.
public enum PhoneApp {
    public struct CSVImportActivityAttributes {  // : ActivityAttributes on iOS
        public struct ContentState: Codable, Hashable {
            public var progress: Double  // 0.0 ... 1.0
            public var currentStep: String  // e.g. "Looking up ISBNs…"
            public var booksProcessed: Int
            public var totalBooks: Int
            public var successCount: Int
            public var duplicateCount: Int
            public var failureCount: Int
            public var currentBookTitle: String?
            public var currentBookAuthor: String?
            public var matchesBySource: [String: Int]?
        }
        public var fileName: String
        public var sessionId: UUID
        public var fileSize: Int64?
        public var estimatedDuration: TimeInterval?
    }
    public struct BeerQueueAttributes {  // : ActivityAttributes on iOS
        public struct ContentState: Codable, Hashable {
            public var queueCount: Int
            public var beers: [QueuedBeer]
            public var storeLocation: String
            public var lastUpdated: String
        }
        public var memberId: String
        public var storeId: String
    }
    public struct QueuedBeer: Codable, Hashable { public let id: String; public let name: String; public let date: String }

    /// The shipping app's own subset, which the superset must also decode into.
    public struct ShippingBeerQueueContentState: Codable, Hashable {
        public struct Beer: Codable, Hashable { public let id: String; public let name: String }
        public var beers: [Beer]
    }
}

// `ActivityAttributes` is `Codable` on iOS; these give the copies the same synthesized conformance.
extension PhoneApp.CSVImportActivityAttributes: Codable, Hashable {}
extension PhoneApp.BeerQueueAttributes: Codable, Hashable {}
