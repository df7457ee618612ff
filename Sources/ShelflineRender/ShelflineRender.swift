/// Render: the import activity's snapshots (JSON ActivityKit decodes and a push sender sends as
/// they are), the import report page and the library page.
///
/// It must not send pushes, read the clock or the environment, or write other than via `AtomicFile`.
public enum ShelflineRender {}
