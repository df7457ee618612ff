/// Render: Live Activity snapshots and APNs push bodies (import, beer queue) and the import report page.
///
/// What it is for: turning what the pipeline and the beer-queue page say into JSON an iOS app's
/// ActivityKit structs decode as they are, and that a push sender can send as it is.
/// What it must not do: send pushes itself, read the clock or the environment (time comes in as
/// an argument), or write a file other than through `AtomicFile`.
public enum ShelflineRender {
    /// The APNs limit for a Live Activity push body, in bytes.
    public static let maximumPushBodyBytes = 4096
}
