"""Authentication and encryption of tensorweave's RPCs.

- A shared secret: every RPC carries it in the `tw-auth` metadata header; each server checks it with a
  constant-time comparison (a server interceptor) and refuses a call without it, or with a wrong one, with
  UNAUTHENTICATED (`errors.UnauthenticatedError` at the caller), logging the refusal. Without TLS the secret
  crosses the network in the clear: use both on an untrusted network.
- TLS through grpc's SSL credentials: the server's certificate and key; a CA certificate that clients use to
  check the server; mutual TLS (`tls_client_auth=True`) where servers also require a client certificate signed
  by that CA (each task presents its own certificate as a client).

Settings come from, in this order: keyword arguments of `Server` / the remote session's config, the
"security" object of `TW_CONFIG`, and the environment (`TW_SECRET`, `TW_SECRET_FILE`, `TW_TLS_CERT`,
`TW_TLS_KEY`, `TW_TLS_CA`, `TW_TLS_CLIENT_AUTH`); file settings are paths to PEM files.
"""

import hmac
import logging
import os
import threading

from tensorweave.distributed import cluster_spec

_log = logging.getLogger("tensorweave.distributed")
AUTH_HEADER = "tw-auth"
_FIELDS = ("secret", "secret_file", "tls_cert", "tls_key", "tls_ca", "tls_client_auth")


def _read(path, what):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise ValueError(f"cannot read the {what} file {path!r}: {e}") from None


def _truthy(value):
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)


class Security:
    """The security settings of a task: `secret` (bytes or None), `tls_cert`, `tls_key`, `tls_ca` (PEM bytes
    or None) and `tls_client_auth` (mutual TLS)."""

    def __init__(self, secret=None, tls_cert=None, tls_key=None, tls_ca=None, tls_client_auth=False):
        if isinstance(secret, str):
            secret = secret.encode()
        if secret is not None and not secret:
            raise ValueError("the shared secret must not be empty")
        self.secret = secret
        self.tls_cert, self.tls_key, self.tls_ca = tls_cert, tls_key, tls_ca
        self.tls_client_auth = bool(tls_client_auth)
        if (tls_cert is None) != (tls_key is None):
            raise ValueError("TLS needs both a certificate (tls_cert) and its private key (tls_key)")
        if self.tls_client_auth and (tls_ca is None or tls_cert is None):
            raise ValueError("mutual TLS (tls_client_auth) needs tls_ca, tls_cert and tls_key")

    @property
    def tls(self):
        return self.tls_cert is not None or self.tls_ca is not None

    @classmethod
    def resolve(cls, settings=None, environ=None):
        """The settings of `settings` (a dict of the keyword names; values as given or paths for the file
        ones), completed from TW_CONFIG's "security" and the environment."""
        environ = os.environ if environ is None else environ
        merged = {}
        env = {
            "secret": environ.get("TW_SECRET"),
            "secret_file": environ.get("TW_SECRET_FILE"),
            "tls_cert": environ.get("TW_TLS_CERT"),
            "tls_key": environ.get("TW_TLS_KEY"),
            "tls_ca": environ.get("TW_TLS_CA"),
            "tls_client_auth": environ.get("TW_TLS_CLIENT_AUTH"),
        }
        try:
            task = cluster_spec.cluster_resolver(environ)
        except ValueError:
            task = None
        sources = [settings or {}, task.security if task is not None else {}, env]
        for source in sources:
            unknown = set(source) - set(_FIELDS)
            if unknown:
                raise ValueError(f"unknown security settings {sorted(unknown)}; known: {list(_FIELDS)}")
            for k in _FIELDS:
                if merged.get(k) is None and source.get(k) not in (None, ""):
                    merged[k] = source[k]
        secret = merged.get("secret")
        if secret is None and merged.get("secret_file"):
            secret = _read(merged["secret_file"], "secret").strip()

        def pem(name):
            v = merged.get(name)
            if v is None or isinstance(v, bytes):
                return v
            if isinstance(v, str) and v.lstrip().startswith("-----BEGIN"):
                return v.encode()
            return _read(v, name)

        return cls(secret, pem("tls_cert"), pem("tls_key"), pem("tls_ca"), _truthy(merged.get("tls_client_auth")))

    # --- server side ------------------------------------------------------------
    def server_credentials(self):
        import grpc

        if self.tls_cert is None:
            return None
        return grpc.ssl_server_credentials(
            [(self.tls_key, self.tls_cert)],
            root_certificates=self.tls_ca if self.tls_client_auth else None,
            require_client_auth=self.tls_client_auth,
        )

    def interceptors(self):
        return [_AuthInterceptor(self.secret)] if self.secret is not None else []

    # --- client side ------------------------------------------------------------
    def channel_credentials(self):
        import grpc

        if not self.tls:
            return None
        if self.tls_client_auth:
            return grpc.ssl_channel_credentials(self.tls_ca, self.tls_key, self.tls_cert)
        return grpc.ssl_channel_credentials(self.tls_ca)

    def metadata(self):
        return ((AUTH_HEADER, self.secret.decode("latin-1")),) if self.secret is not None else None


_default = None
_default_lock = threading.Lock()


def set_process_default(security):
    """The settings sessions of this process use for `grpc://` targets (a Server made here sets them)."""
    global _default
    with _default_lock:
        _default = security


def process_default():
    """The process's settings: a Server's, else those of TW_CONFIG and the environment."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Security.resolve()
        return _default


class _AuthInterceptor:
    """Refuses every call whose `tw-auth` header is not the shared secret (UNAUTHENTICATED, logged)."""

    def __new__(cls, secret):
        import grpc

        class AuthInterceptor(grpc.ServerInterceptor):
            def __init__(self):
                self._secret = secret.decode("latin-1").encode("latin-1")

            def intercept_service(self, continuation, details):
                token = None
                for key, value in details.invocation_metadata or ():
                    if key == AUTH_HEADER:
                        token = value
                        break
                if token is not None and hmac.compare_digest(
                    token.encode("latin-1") if isinstance(token, str) else token, self._secret
                ):
                    return continuation(details)
                reason = "no credentials" if token is None else "a wrong secret"
                method = details.method

                def deny(request_or_iterator, context):
                    _log.warning("refused %s from %s: %s", method, context.peer(), reason)
                    context.abort(
                        grpc.StatusCode.UNAUTHENTICATED,
                        f"{method}: the call carried {reason} (this server requires the cluster's shared secret)",
                    )

                if method.endswith("/Calls"):  # (rpc.STREAM)
                    return grpc.stream_stream_rpc_method_handler(deny)
                if method.endswith("Stream"):
                    return grpc.stream_unary_rpc_method_handler(deny)
                return grpc.unary_unary_rpc_method_handler(deny)

        return AuthInterceptor()
