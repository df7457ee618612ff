/// Beer queue: the Flying Saucer beer-queue Live Activity, a second product beside the import.
/// It reads the member's queue (a saved or polled `memberQueues.php`, or a JSON file), decides what
/// it means for the activity and publishes the snapshot. It owns the only network client carrying
/// a secret (the session cookie), so only `shelfline-render` links it. It must not send the cookie
/// anywhere but the configured origin, let it (or a control character) into a message or snapshot,
/// read the clock, or stop for good on a state file it can rebuild.
public enum ShelflineBeerQueue {}
