/// HTTP: the one HTTP GET (`HTTPGet`, on AsyncHTTPClient) of lookup and the beer-queue poll: a
/// deadline over the whole exchange, a size limit while the body streams, the caller's redirect rule,
/// failures told apart. Must not: hold its callers' policy (pacing, retries, the breaker, the
/// cookie's origin rule), put request headers (a cookie) into a failure, or be linked by parse, dedupe, merge.
public enum ShelflineHTTP {}
