/// The library side of Shelfline: identity keys, `shelfline-dedupe`, `shelfline-merge`, review
/// decisions and the failed-rows export.
///
/// It owns `<workspace>/library/` (the library file, its previous generation, the decisions file
/// and the merge lock) and nothing else. It knows nothing about argument parsing or processes:
/// the commands in `ShelflineCommands` call `DedupeStage`, `MergeStage` and `ReviewDecisions`.
/// Memory stays bounded by the number of distinct identity keys, never by whole records or books.
public enum ShelflineLibrary {}
