/// Render: the import activity's snapshots (models in ShelflineActivity), the import report page and the library page.
///
/// What it is for: turning what the pipeline says into JSON an iOS app's
/// ActivityKit structs decode as they are, and that a push sender can send as it is.
/// What it must not do: send pushes itself, read the clock or the environment (time comes in as
/// an argument), or write a file other than through `AtomicFile`.
public enum ShelflineRender {}
