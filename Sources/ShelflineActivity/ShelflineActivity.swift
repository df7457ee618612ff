/// Activity: the iOS app's Live Activity models (import and beer queue), their APNs push bodies
/// and the snapshot files a renderer publishes and a sender reads.
///
/// What it is for: the one definition of what the phone decodes, shared by the producers
/// (ShelflineRender's import activity, ShelflineBeerQueue) and the sender (ShelflinePush), none of
/// which depends on another for it. The structs mirror the app's exactly, so the synthesized
/// `Codable` gives the JSON a default `JSONDecoder` on the phone expects.
/// What it must not do: know about a stage, its reports or its parameters, read the clock or the
/// environment (time comes in as an argument), or write a file other than through `AtomicFile`.
public enum ShelflineActivity {
    /// The APNs limit for a Live Activity push body, in bytes.
    public static let maximumPushBodyBytes = 4096
}
