import Foundation

/// Mirror of the app's `CSVImportActivityAttributes` (an `ActivityAttributes` on iOS).
public struct CSVImportActivityAttributes: Codable, Hashable, Sendable {
    /// Mirror of the app's `CSVImportActivityAttributes.ContentState`.
    public struct ContentState: Codable, Hashable, Sendable {
        /// 0.0 ... 1.0
        public var progress: Double
        public var currentStep: String
        public var booksProcessed: Int
        public var totalBooks: Int
        public var successCount: Int
        public var duplicateCount: Int
        public var failureCount: Int
        public var currentBookTitle: String?
        public var currentBookAuthor: String?
        /// Books matched per metadata source, at the end and only when more than one matched; the
        /// names are short configured ones, so the push stays far below its 4096 bytes.
        public var matchesBySource: [String: Int]?

        public init(
            progress: Double, currentStep: String, booksProcessed: Int, totalBooks: Int, successCount: Int,
            duplicateCount: Int, failureCount: Int, currentBookTitle: String? = nil, currentBookAuthor: String? = nil,
            matchesBySource: [String: Int]? = nil
        ) {
            self.progress = progress
            self.currentStep = currentStep
            self.booksProcessed = booksProcessed
            self.totalBooks = totalBooks
            self.successCount = successCount
            self.duplicateCount = duplicateCount
            self.failureCount = failureCount
            self.currentBookTitle = currentBookTitle
            self.currentBookAuthor = currentBookAuthor
            self.matchesBySource = matchesBySource
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
