import Foundation
import ShelflineActivity
import ShelflineCore

/// The render stage's `parameters` in `pipeline.json`; every field has a default so `{}` works.
public struct RenderParameters: ConfigDefaults, Sendable, Equatable {
    public var minimumUpdateIntervalSeconds: Double = 2
    /// `stale-date`: shown as stale on the phone after this long without an update.
    public var importStaleAfterMinutes: Int = 10
    /// `dismissal-date` of a finished import's `end`.
    public var importDismissAfterMinutes: Int = 30
    /// Snapshots kept per activity history file.
    public var historyLimit = ActivityStore.defaultHistoryLimit
    /// Rows listed per table in `report.html` (the counts always cover every row).
    public var reportMaximumRows: Int = 1000

    public init() {}
}
