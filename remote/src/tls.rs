//! The TLS of amail's HTTP client: which server certificates it takes.
//!
//! A certificate is checked as the system checks it
//! (`rustls-platform-verifier`: the system's store, or the PEM file
//! `SSL_CERT_FILE` names, as curl and Python read it). One case more is
//! taken, the one a user meets first with a server of their own: the
//! self-signed certificate `openssl req -x509` makes carries `CA:TRUE`,
//! and WebPKI refuses a CA's certificate as a server's own
//! (`CaUsedAsEndEntity`), though the user named that very file. So a
//! server whose certificate is, byte for byte, one of those in
//! `SSL_CERT_FILE` is taken: the user named it, and the handshake's
//! signature (checked as always) shows the server holds its key. No
//! other certificate is taken on that ground, and nothing is taken that
//! no file named.

use std::fmt;
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};

/// The rustls settings for an https server: ring's crypto, the system's
/// check, and the certificates `SSL_CERT_FILE` names taken as they are.
pub(crate) fn client_config() -> Result<rustls::ClientConfig, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    // The named file first: the system's check reads it too, and says
    // only that no certificate was loaded.
    let named = match std::env::var_os("SSL_CERT_FILE") {
        Some(file) => named_certificates(std::path::Path::new(&file))?,
        None => Vec::new(),
    };
    let system = rustls_platform_verifier::Verifier::new(provider.clone())
        .map_err(|e| format!("cannot read the system's certificates: {e}"))?;
    let verifier = NamedOrSystem {
        named,
        system: Arc::new(system),
    };
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("cannot set up TLS: {e}"))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth())
}

/// The certificates in `file`, the PEM file `SSL_CERT_FILE` names: one
/// that cannot be read, or holds none, is an error that says so (the
/// system's check would refuse the server with no word of the file).
fn named_certificates(file: &std::path::Path) -> Result<Vec<CertificateDer<'static>>, String> {
    use rustls::pki_types::pem::Error as Pem;
    let said = |e: Pem| match e {
        Pem::Io(e) => format!("SSL_CERT_FILE {}: cannot read it: {e}", file.display()),
        e => format!(
            "SSL_CERT_FILE {}: not a PEM certificate file: {e}",
            file.display()
        ),
    };
    let certs = CertificateDer::pem_file_iter(file)
        .map_err(said)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(said)?;
    if certs.is_empty() {
        return Err(format!(
            "SSL_CERT_FILE {}: no certificate in it (a PEM file holds `-----BEGIN CERTIFICATE-----`)",
            file.display()
        ));
    }
    Ok(certs)
}

/// The system's check, and a certificate the user named taken as it is.
struct NamedOrSystem {
    named: Vec<CertificateDer<'static>>,
    system: Arc<dyn ServerCertVerifier>,
}

impl fmt::Debug for NamedOrSystem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NamedOrSystem({} named)", self.named.len())
    }
}

impl ServerCertVerifier for NamedOrSystem {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.system
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
            .or_else(|refused| {
                if self.named.iter().any(|n| n.as_ref() == end_entity.as_ref()) {
                    Ok(ServerCertVerified::assertion())
                } else {
                    Err(refused)
                }
            })
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.system.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.system.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.system.supported_verify_schemes()
    }
}
