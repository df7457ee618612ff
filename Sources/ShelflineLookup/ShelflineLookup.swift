/// Lookup: enriches records with edition metadata from metadata sources — the local Open Library
/// catalog (dump files indexed into SQLite) and the Open Library API over HTTP.
///
/// It decides, per record, one `MatchStatus` and never guesses: a title/author match is accepted
/// only when it is close and clearly better than the runner-up. It must not read the environment,
/// parse command lines or touch files other than its input, outputs and the workspace cache.
public enum ShelflineLookup {}
