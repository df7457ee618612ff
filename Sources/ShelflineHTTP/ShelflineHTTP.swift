/// HTTP: the project's one HTTP GET (`HTTPGet`, on AsyncHTTPClient), shared by lookup's Open
/// Library client and the beer-queue poll.
///
/// What it is for: sending a GET with a deadline over the whole exchange, reading the answer
/// against a size limit while it streams in, following redirects only where the caller's rule
/// allows, and telling failures apart (nothing reached a server, a name did not resolve, a timeout,
/// too large). What it must not do: hold any policy of its callers (pacing, retries, the breaker,
/// the cookie's origin rule stay with them), put request headers (a cookie) into a failure, or be
/// linked by the executables that make no request (parse, dedupe, merge).
public enum ShelflineHTTP {}
