/// Beer queue: the Flying Saucer beer-queue Live Activity, a second product beside the import.
///
/// What it is for: reading the member's queue (a saved or polled `memberQueues.php`, or a JSON
/// file), deciding what it means for the activity (`BeerQueueLifecycle`) and publishing the
/// snapshot through ShelflineActivity's `ActivityStore`. It owns the only network client that carries a
/// secret (the session cookie), so only `shelfline-render` links it.
/// What it must not do: send the cookie anywhere but the configured origin, let it (or a control
/// character) into a message or snapshot, read the clock (time comes in as an argument), or stop
/// for good on a state file it can rebuild.
public enum ShelflineBeerQueue {}
