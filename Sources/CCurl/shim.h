// libcurl for the beer-queue poll: curl_easy_setopt/getinfo are variadic, which Swift cannot call.
#include <curl/curl.h>

typedef size_t (*shelfline_curl_write_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode shelfline_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode shelfline_curl_set_size(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode shelfline_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode shelfline_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode shelfline_curl_set_write_callback(CURL *handle, shelfline_curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}

static inline CURLcode shelfline_curl_get_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode shelfline_curl_get_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

// Progress callback (lookup's Open Library client): returning non-zero aborts the transfer.
typedef int (*shelfline_curl_xferinfo_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow,
                                                curl_off_t ultotal, curl_off_t ulnow);

static inline CURLcode shelfline_curl_set_xferinfo_callback(CURL *handle, shelfline_curl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}
