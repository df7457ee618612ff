import Foundation

/// Test-only copies of the iOS app's structs, verbatim from issue 6. Decoding every snapshot with
/// these and a default `JSONDecoder` is the contract the phone relies on. They sit in a namespace
/// so they do not collide with ShelflineRender's own mirrors.
enum PhoneApp {
    struct CSVImportActivityAttributes {            // : ActivityAttributes on iOS
        struct ContentState: Codable, Hashable {
            var progress: Double          // 0.0 ... 1.0
            var currentStep: String       // e.g. "Looking up ISBNs…"
            var booksProcessed: Int
            var totalBooks: Int
            var successCount: Int
            var duplicateCount: Int
            var failureCount: Int
            var currentBookTitle: String?
            var currentBookAuthor: String?
        }
        var fileName: String
        var sessionId: UUID
        var fileSize: Int64?
        var estimatedDuration: TimeInterval?
    }
    struct BeerQueueAttributes {                    // : ActivityAttributes on iOS
        public struct ContentState: Codable, Hashable {
            var queueCount: Int
            var beers: [QueuedBeer]
            var storeLocation: String
            var lastUpdated: String
        }
        var memberId: String
        var storeId: String
    }
    struct QueuedBeer: Codable, Hashable { let id: String; let name: String; let date: String }

    /// The shipping app's own subset, which the superset must also decode into.
    struct ShippingBeerQueueContentState: Codable, Hashable {
        struct Beer: Codable, Hashable { let id: String; let name: String }
        var beers: [Beer]
    }
}

// `ActivityAttributes` is `Codable` on iOS; these give the copies the same synthesized conformance.
extension PhoneApp.CSVImportActivityAttributes: Codable, Hashable {}
extension PhoneApp.BeerQueueAttributes: Codable, Hashable {}
