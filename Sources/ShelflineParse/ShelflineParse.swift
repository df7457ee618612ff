/// Parse: turns a reading-library export into `BookRecord`s, one per data row, every row counted.
///
/// `ParseStage` is the entry point; formats are registered in `ImportFormats.all`. This module must
/// not parse command lines, read the environment or the clock, or open output paths except through
/// `ShelflineCore`'s atomic writers.
public enum ShelflineParse {}
