/// Activity: the app's Live Activity models, their APNs push bodies and the snapshot files, defined
/// once for render, the beer queue and push, none of which depends on another for them. The structs
/// mirror the app's, so synthesized `Codable` gives the JSON the phone's default `JSONDecoder` expects.
/// Must not: know a stage or its reports, read the clock or environment, write other than through `AtomicFile`.
public enum ShelflineActivity {
    /// APNs' limit for a Live Activity push body, in bytes.
    public static let maximumPushBodyBytes = 4096
}
