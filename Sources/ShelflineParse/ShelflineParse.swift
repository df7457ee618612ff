/// Parse: turns a reading-library export (CSV/TSV) into `BookRecord`s. Knows nothing about
/// argument parsing or processes; `ShelflineCommands.ParseCommand` drives it.
public enum ShelflineParse {}
