/// The library side of Shelfline: identity keys, dedupe, merge, review decisions and the exports.
/// It owns `<workspace>/library/` and nothing else, knows nothing of argument parsing or processes, and
/// its memory is bounded by the distinct identity keys, never by whole records or books.
public enum ShelflineLibrary {}
