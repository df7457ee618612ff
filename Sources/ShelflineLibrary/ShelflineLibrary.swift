/// Library: dedupe and merge records into the persistent library, review decisions, failed rows.
public enum ShelflineLibrary {}
