// The system's libcrypto (OpenSSL 3, libssl-dev): SHA-256, P-256 ES256 and random bytes.
// The low-level SHA-256 calls are deprecated in OpenSSL 3 in favour of EVP, whose per-call method
// lookup costs more than hashing a book key; they remain supported, so their warnings are silenced.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <stdlib.h>
#include <string.h>

/// A private key from PKCS#8 DER, or NULL when the bytes hold none.
static inline EVP_PKEY *shelfline_pkcs8_private_key(const unsigned char *der, long length) {
    const unsigned char *cursor = der;
    return d2i_AutoPrivateKey(NULL, &cursor, length);
}

/// The key's curve name (`prime256v1` for P-256) into `name`; 0 when the key is no EC key.
static inline int shelfline_ec_curve_name(const EVP_PKEY *key, char *name, size_t capacity) {
    if (EVP_PKEY_get_base_id(key) != EVP_PKEY_EC) return 0;
    size_t length = 0;
    return EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, name, capacity, &length);
}

/// A new EC key on `curve` (`P-256`, `P-384`), or NULL.
static inline EVP_PKEY *shelfline_ec_generate(const char *curve) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "EC", curve);
}

/// The public point, uncompressed (65 bytes for P-256); 0 on failure.
static inline size_t shelfline_ec_public_point(const EVP_PKEY *key, unsigned char *out, size_t capacity) {
    size_t length = 0;
    if (!EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, out, capacity, &length)) return 0;
    return length;
}

/// ES256 over `message` (SHA-256, then ECDSA): `r || s`, 32 bytes each, into `out`; 1 on success.
static inline int shelfline_es256_sign(EVP_PKEY *key, const unsigned char *message, size_t length, unsigned char out[64]) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (!context) return 0;
    unsigned char der[80];
    size_t derLength = sizeof der;
    int ok = EVP_DigestSignInit(context, NULL, EVP_sha256(), NULL, key) == 1
        && EVP_DigestSign(context, der, &derLength, message, length) == 1;
    EVP_MD_CTX_free(context);
    if (!ok) return 0;
    const unsigned char *cursor = der;
    ECDSA_SIG *signature = d2i_ECDSA_SIG(NULL, &cursor, (long)derLength);
    if (!signature) return 0;
    const BIGNUM *r = NULL, *s = NULL;
    ECDSA_SIG_get0(signature, &r, &s);
    ok = BN_bn2binpad(r, out, 32) == 32 && BN_bn2binpad(s, out + 32, 32) == 32;
    ECDSA_SIG_free(signature);
    return ok;
}

/// Whether `signature` (`r || s`) is an ES256 signature of `message` by the P-256 public point
/// `point` (uncompressed); 1 when it verifies.
static inline int shelfline_es256_verify(
    const unsigned char *point, size_t pointLength, const unsigned char *message, size_t length,
    const unsigned char signature[64]) {
    EC_KEY *key = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
    if (!key) return 0;
    const unsigned char *cursor = point;
    int ok = 0;
    if (o2i_ECPublicKey(&key, &cursor, (long)pointLength)) {
        ECDSA_SIG *parsed = ECDSA_SIG_new();
        BIGNUM *r = BN_bin2bn(signature, 32, NULL), *s = BN_bin2bn(signature + 32, 32, NULL);
        if (parsed && r && s && ECDSA_SIG_set0(parsed, r, s)) {
            r = s = NULL;
            unsigned char digest[SHA256_DIGEST_LENGTH];
            SHA256(message, length, digest);
            ok = ECDSA_do_verify(digest, sizeof digest, parsed, key) == 1;
        }
        BN_free(r);
        BN_free(s);
        ECDSA_SIG_free(parsed);
    }
    EC_KEY_free(key);
    return ok;
}

/// The key as PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), malloc'd into `*out` (the caller frees);
/// its length, or 0 on failure.
static inline size_t shelfline_pkcs8_pem(EVP_PKEY *key, char **out) {
    BIO *bio = BIO_new(BIO_s_mem());
    if (!bio) return 0;
    size_t length = 0;
    if (PEM_write_bio_PKCS8PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL) == 1) {
        char *data = NULL;
        long count = BIO_get_mem_data(bio, &data);
        if (count > 0 && (*out = malloc((size_t)count))) {
            memcpy(*out, data, (size_t)count);
            length = (size_t)count;
        }
    }
    BIO_free(bio);
    return length;
}
