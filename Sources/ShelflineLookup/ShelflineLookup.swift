/// Lookup: enriches records with edition metadata from the registered sources (the local catalog
/// indexed into SQLite, HTTP APIs). One `MatchStatus` per record, never a guess: a title/author
/// match is accepted only when it is clearly the user's book. It must not read the environment,
/// parse command lines or touch files other than its input, outputs and the workspace cache.
public enum ShelflineLookup {}
