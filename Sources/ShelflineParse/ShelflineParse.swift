/// Parse: turns a reading-library export (Goodreads, StoryGraph, LibraryThing CSV/TSV, or a CSV
/// with a configured column mapping) into `BookRecord`s, one per data row, every row counted as
/// written or rejected.
///
/// `ParseStage` is the entry point; `DelimitedReader` reads RFC 4180 bytes; `ExportSchema` knows
/// each format's header names; `RecordBuilder` applies the rules under `Normalise/` and fills a
/// `ParsedRecord` (a `BookRecord` whose pass-through text stays bytes of the row);
/// `BookRecordJSON` writes the output lines. This module must not parse command lines, read the
/// environment or the clock, or open output paths except through `ShelflineCore`'s atomic writers.
public enum ShelflineParse {}
