/// Lookup: enriches records from metadata sources (local Open Library catalog, Open Library API).
public enum ShelflineLookup {}
