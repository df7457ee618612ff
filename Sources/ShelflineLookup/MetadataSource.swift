import ShelflineCore

/// The source kinds `pipeline.json` and `--source` may name, in one list.
public enum SourceKind: String, CaseIterable, Sendable, Codable {
    case catalog, openlibrary, googlebooks, isbndb
}

/// Somewhere edition metadata comes from. The stage chains sources in the configured order.
///
/// Adding a source (e.g. Google Books) is one new conforming type plus a `SourceKind` case.
/// Methods throw `SourceFailure` when the source cannot answer; an answer with nothing in it is
/// an empty result, not an error.
public protocol MetadataSource: Sendable {
    /// Name written into `MatchResult.source` and `EditionMetadata.source`.
    var name: String { get }
    /// Remote sources' answers are kept in the persistent cache; local ones are fast enough not to.
    var isRemote: Bool { get }
    /// How many ISBNs one `editions(isbns:)` call should carry.
    var isbnBatchSize: Int { get }
    /// Editions for canonical ISBN-13s, keyed by the ISBN asked for; misses are absent.
    func editions(isbns: [String]) async throws -> [String: EditionMetadata]
    /// Candidate editions (or works) for a title and optional author, best-effort ordered.
    func candidates(title: String, author: String?, limit: Int) async throws -> [EditionMetadata]
    /// The failure every request would meet now, once the source knows it (e.g. found out of
    /// reach); nil while it may answer. Rows are then settled with it at once: no request, no task,
    /// no cache write. It may clear later in the run (a source that refused connections and whose
    /// probe, sent in the background, reached it again): later rows are asked again. Read once per
    /// chunk and phase, so it must be cheap and must not suspend (an actor hop per chunk cost
    /// seconds on a loaded machine).
    var standingFailure: SourceFailure? { get }
}

extension MetadataSource {
    public var standingFailure: SourceFailure? { nil }
}

/// A source asked over HTTP (`ResilientHTTPClient`): the stage reads its counters for the report
/// and names its endpoint in warnings.
public protocol HTTPMetadataSource: MetadataSource {
    var client: ResilientHTTPClient { get }
    /// The base URL, for messages (never a key).
    var endpoint: String { get }
}

extension HTTPMetadataSource {
    public var isRemote: Bool { true }
    public var standingFailure: SourceFailure? { client.standingFailure() }
}
