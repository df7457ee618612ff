/// Render: Live Activity snapshots and APNs push bodies (import, beer queue) and the report page.
public enum ShelflineRender {}
