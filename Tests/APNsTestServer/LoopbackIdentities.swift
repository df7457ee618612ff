/// Two fixed identities (P-256 key and self-signed CA certificate for `localhost` and 127.0.0.1,
/// valid 2026-11-27 to 2126-11-03), made once with `openssl` (the commands below) rather than at
/// run time: generating them took swift-certificates and swift-asn1, about 19 CPU seconds of every
/// fresh build, for test code alone (issue 24).
///
///     openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out key.pem
///     openssl req -x509 -new -key key.pem -sha256 -days 36500 -subj "/CN=shelfline loopback APNs (NAME)" \
///         -addext "basicConstraints=critical,CA:TRUE" -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -out cert.pem
///
/// Test keys only: they guard nothing but loopback servers in tests and benches.
extension APNsTestServer.Identity {
    /// What every loopback APNs presents unless told otherwise.
    public static let loopback = Self(
        keyPEM: """
            -----BEGIN PRIVATE KEY-----
            MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg2nUdTPCBBoX+LwDl
            DlsPP6bpRfFpmgqwxprASCqwKBShRANCAATyah0adKimMRITBW2Ft6DlcwlqYg8Z
            +LkPLXfAQI8+o4mNrGtXJjUwu4D1Y6LnG/O0xemPR5K0nMQcAINCQ5Y1
            -----END PRIVATE KEY-----
            """,
        certificatePEM: """
            -----BEGIN CERTIFICATE-----
            MIIBzDCCAXOgAwIBAgIUe9pNQfengrWRMLX30mDd62D9t2MwCgYIKoZIzj0EAwIw
            LTErMCkGA1UEAwwic2hlbGZsaW5lIGxvb3BiYWNrIEFQTnMgKGxvb3BiYWNrKTAg
            Fw0yNjExMjcwMDM4MDJaGA8yMTI2MTEwMzAwMzgwMlowLTErMCkGA1UEAwwic2hl
            bGZsaW5lIGxvb3BiYWNrIEFQTnMgKGxvb3BiYWNrKTBZMBMGByqGSM49AgEGCCqG
            SM49AwEHA0IABPJqHRp0qKYxEhMFbYW3oOVzCWpiDxn4uQ8td8BAjz6jiY2sa1cm
            NTC7gPVjoucb87TF6Y9HkrScxBwAg0JDljWjbzBtMB0GA1UdDgQWBBRXiCm3S5tQ
            3iJ48X6Zm46k4GufLDAfBgNVHSMEGDAWgBRXiCm3S5tQ3iJ48X6Zm46k4GufLDAP
            BgNVHRMBAf8EBTADAQH/MBoGA1UdEQQTMBGCCWxvY2FsaG9zdIcEfwAAATAKBggq
            hkjOPQQDAgNHADBEAiA/WnZS4Y5DW8k+VmsO5uZrB73C3+u1zLHK3VfTzVoawwIg
            cvQ7PP2wdAv8TZoocDE5ooxCcA/JN2sdQ3H0dSAoJZ8=
            -----END CERTIFICATE-----
            """)

    /// Another server's identity: a `caFile` holding this certificate does not trust `loopback`.
    public static let other = Self(
        keyPEM: """
            -----BEGIN PRIVATE KEY-----
            MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgWEO+Q0XQtOinEuj0
            xvKKJWNZfDsmpXdAPZKeJigqUuyhRANCAASw9rb1HdTExqB5vxNrIaOVecPX4kKB
            pWCKhNNLwrdJ4IUR2iOde460V/NCTI9kdZlJRLebdDKIDtA3BcjCbZrF
            -----END PRIVATE KEY-----
            """,
        certificatePEM: """
            -----BEGIN CERTIFICATE-----
            MIIBxzCCAW2gAwIBAgIUCJe23CtYmvZaBBIp5YBJV6JQzjgwCgYIKoZIzj0EAwIw
            KjEoMCYGA1UEAwwfc2hlbGZsaW5lIGxvb3BiYWNrIEFQTnMgKG90aGVyKTAgFw0y
            NjExMjcwMDM4MDJaGA8yMTI2MTEwMzAwMzgwMlowKjEoMCYGA1UEAwwfc2hlbGZs
            aW5lIGxvb3BiYWNrIEFQTnMgKG90aGVyKTBZMBMGByqGSM49AgEGCCqGSM49AwEH
            A0IABLD2tvUd1MTGoHm/E2sho5V5w9fiQoGlYIqE00vCt0nghRHaI517jrRX80JM
            j2R1mUlEt5t0MogO0DcFyMJtmsWjbzBtMB0GA1UdDgQWBBSkqGifX1WOh9whPpdl
            GqdLVuVqJTAfBgNVHSMEGDAWgBSkqGifX1WOh9whPpdlGqdLVuVqJTAPBgNVHRMB
            Af8EBTADAQH/MBoGA1UdEQQTMBGCCWxvY2FsaG9zdIcEfwAAATAKBggqhkjOPQQD
            AgNIADBFAiAUxJqowlgIrJ+KernuDcECn1ipekdVaJ4IZnxy3WWPbwIhAKCL8Sx+
            Q80laNeGiK6uhTBppu1EwprMVlbV1UewH05C
            -----END CERTIFICATE-----
            """)
}
