import Foundation
import ShelflineCore

/// The three Live Activity push events.
public enum ActivityEvent: String, Codable, Sendable, CaseIterable {
    case start, update, end
}

/// The visible alert of a push (`aps.alert`).
public struct PushAlert: Codable, Hashable, Sendable {
    public var title: String
    public var body: String

    public init(title: String, body: String) {
        self.title = title
        self.body = body
    }
}

/// What the activity types are: the phone decodes them, a sender compares them.
public typealias ActivityModel = Codable & Hashable & Sendable

/// `aps` of a Live Activity push, with Apple's key names. Absent values are omitted.
public struct ActivityAPS<Attributes: ActivityModel, State: ActivityModel>: ActivityModel {
    /// Unix seconds.
    public var timestamp: Int
    public var event: ActivityEvent
    public var contentState: State
    /// Unix seconds after which the system shows the activity as out of date.
    public var staleDate: Int?
    /// Unix seconds when an ended activity leaves the Lock Screen (`end` only).
    public var dismissalDate: Int?
    public var alert: PushAlert?
    /// This and `attributes` only on `start` (push-to-start).
    public var attributesType: String?
    public var attributes: Attributes?

    enum CodingKeys: String, CodingKey {
        case timestamp, event, alert, attributes
        case contentState = "content-state"
        case staleDate = "stale-date"
        case dismissalDate = "dismissal-date"
        case attributesType = "attributes-type"
    }
}

/// A complete APNs body: `{"aps": {…}}`.
public struct ActivityPushBody<Attributes: ActivityModel, State: ActivityModel>: ActivityModel {
    public var aps: ActivityAPS<Attributes, State>

    /// The bytes a sender posts (compact, sorted keys), whose size APNs limits to 4096.
    public func encoded() throws -> Data {
        try JSONEncoder.shelfline.encode(self)
    }
}

/// What `<workspace>/activity/<name>.json` holds: the activity's latest state and its push body.
public struct ActivitySnapshot<Attributes: ActivityModel, State: ActivityModel>: ActivityModel {
    public var attributesType: String
    public var attributes: Attributes
    public var contentState: State
    public var event: ActivityEvent
    /// Unix seconds.
    public var timestamp: Int
    public var apns: ActivityPushBody<Attributes, State>
    /// Beer queue: true while the queue could not be fetched (the beers are the last known ones).
    public var offline: Bool?
    /// Import: Unix seconds when this import's activity started (for the measured duration).
    public var startedAt: Int?
}

extension ActivitySnapshot {
    /// Builds a snapshot whose push body carries exactly Apple's keys for `event`:
    /// `start` adds `attributes-type` and `attributes`; `dismissal-date` only on `end`.
    public init(
        attributesType: String, attributes: Attributes, contentState: State, event: ActivityEvent, timestamp: Int,
        staleDate: Int?, dismissalDate: Int?, alert: PushAlert?, offline: Bool? = nil, startedAt: Int? = nil
    ) {
        let aps = ActivityAPS<Attributes, State>(
            timestamp: timestamp, event: event, contentState: contentState,
            staleDate: event == .end ? nil : staleDate,
            dismissalDate: event == .end ? dismissalDate : nil,
            alert: alert,
            attributesType: event == .start ? attributesType : nil,
            attributes: event == .start ? attributes : nil)
        self.init(
            attributesType: attributesType, attributes: attributes, contentState: contentState, event: event,
            timestamp: timestamp, apns: ActivityPushBody(aps: aps), offline: offline, startedAt: startedAt)
    }

    /// Size in bytes of the push body as a sender posts it.
    public func pushBodySize() throws -> Int {
        try apns.encoded().count
    }
}

/// `now`, but never before the activity's latest snapshot's timestamp: ActivityKit ignores an
/// update or end older than what it shows, so after the clock moves back they wait for it.
package func activityTimestamp(_ now: Date, notBefore previous: Int?) -> Int {
    max(unixSeconds(now), previous ?? .min)
}

/// Unix seconds (whole) of a date, the unit of every timestamp in a push body.
package func unixSeconds(_ date: Date) -> Int {
    Int(date.timeIntervalSince1970.rounded(.down))
}

extension String {
    /// The string cut to at most `limit` characters (never inside a grapheme), with `…` if cut.
    package func truncated(toCharacters limit: Int) -> String {
        guard count > limit else { return self }
        guard limit > 1 else { return limit == 1 ? "…" : "" }
        return String(prefix(limit - 1)) + "…"
    }
}
