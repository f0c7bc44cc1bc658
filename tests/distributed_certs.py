"""Test certificates for the distributed runtime's TLS tests: a CA, a server certificate for 127.0.0.1 and
localhost, and a client certificate, all signed by the CA (made with `cryptography`; None when it is not
installed)."""

import datetime
import ipaddress


def make_certs():
    """{"ca", "server_cert", "server_key", "client_cert", "client_key", "other_ca"} as PEM bytes, or None
    when the `cryptography` package is missing. "other_ca" is an unrelated CA (a client trusting only it must
    refuse the server)."""
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID
    except ImportError:
        return None
    now = datetime.datetime.now(datetime.timezone.utc)

    def key():
        return ec.generate_private_key(ec.SECP256R1())

    def name(cn):
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])

    def pem_key(k):
        return k.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )

    def ca(cn):
        k = key()
        cert = (
            x509.CertificateBuilder()
            .subject_name(name(cn))
            .issuer_name(name(cn))
            .public_key(k.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(k, hashes.SHA256())
        )
        return k, cert

    def leaf(cn, ca_key, ca_cert, server):
        k = key()
        b = (
            x509.CertificateBuilder()
            .subject_name(name(cn))
            .issuer_name(ca_cert.subject)
            .public_key(k.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        )
        if server:
            b = b.add_extension(
                x509.SubjectAlternativeName(
                    [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
                ),
                critical=False,
            )
        cert = b.sign(ca_key, hashes.SHA256())
        return pem_key(k), cert.public_bytes(serialization.Encoding.PEM)

    ca_key, ca_cert = ca("tensorweave test CA")
    _, other = ca("some other CA")
    server_key, server_cert = leaf("127.0.0.1", ca_key, ca_cert, True)
    client_key, client_cert = leaf("tensorweave client", ca_key, ca_cert, False)
    return {
        "ca": ca_cert.public_bytes(serialization.Encoding.PEM),
        "other_ca": other.public_bytes(serialization.Encoding.PEM),
        "server_cert": server_cert,
        "server_key": server_key,
        "client_cert": client_cert,
        "client_key": client_key,
    }
