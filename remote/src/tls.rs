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
//! `SSL_CERT_FILE` is taken despite that one refusal: the user named it,
//! and the handshake's signature (checked as always) shows the server
//! holds its key. Every other refusal stands (an expired certificate,
//! another host's), and nothing is taken that no file named.

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
    let system = rustls_platform_verifier::Verifier::new(provider.clone()).map_err(|e| {
        format!(
            "cannot load this machine's CA certificates ({e}): install them (the \
                 ca-certificates package), or point SSL_CERT_FILE at the server's certificate \
                 in PEM"
        )
    })?;
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

/// The rustls settings for a plain http:// server: none are used (its
/// redirects are followed within its own origin only, never to https),
/// and none are loaded. reqwest otherwise sets up TLS from the machine's
/// store for any client, and on a machine with none (a slim container
/// without ca-certificates, or `SSL_CERT_FILE` naming a missing file)
/// refused even an http:// server on this machine: "builder error".
pub(crate) fn unused_config() -> rustls::ClientConfig {
    rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .expect("ring's provider supports rustls' default protocol versions")
        .with_root_certificates(rustls::RootCertStore::empty())
        .with_no_client_auth()
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

/// Whether `e` is WebPKI's refusal of a CA's certificate as a server's
/// own, the one refusal a named certificate overrides: its dates, its
/// names and its revocation are held as the system holds them.
pub(crate) fn is_ca_as_server(e: &rustls::Error) -> bool {
    matches!(
        e,
        rustls::Error::InvalidCertificate(rustls::CertificateError::Other(o))
            if matches!(o.0.downcast_ref::<webpki::Error>(), Some(webpki::Error::CaUsedAsEndEntity))
    )
}

/// The system's check, and a certificate the user named taken as the
/// server's own though marked as a CA's.
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
                if !is_ca_as_server(&refused)
                    || !self.named.iter().any(|n| n.as_ref() == end_entity.as_ref())
                {
                    return Err(refused);
                }
                // WebPKI stopped at the mark, before the names: the
                // certificate must still be made out to this server.
                let parsed = rustls::server::ParsedCertificate::try_from(end_entity)?;
                rustls::client::verify_server_name(&parsed, server_name)?;
                Ok(ServerCertVerified::assertion())
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A self-signed certificate for 127.0.0.1 marked `CA:TRUE`, as
    /// `openssl req -x509` makes it; `expired`: valid in 2000 only.
    fn ca_marked(expired: bool) -> CertificateDer<'static> {
        let key = rcgen::KeyPair::generate().unwrap();
        let mut params = rcgen::CertificateParams::new(vec!["127.0.0.1".to_string()]).unwrap();
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        if expired {
            params.not_before = rcgen::date_time_ymd(2000, 1, 1);
            params.not_after = rcgen::date_time_ymd(2001, 1, 1);
        }
        params.self_signed(&key).unwrap().der().clone()
    }

    /// The verifier with `named` as SSL_CERT_FILE's certificates, the
    /// system's check trusting them as roots as it does that file's.
    fn verifier(named: Vec<CertificateDer<'static>>) -> NamedOrSystem {
        let roots = named
            .iter()
            .map(|c| webpki::anchor_from_trusted_cert(c).unwrap().to_owned())
            .collect();
        let system = rustls::client::WebPkiServerVerifier::builder_with_provider(
            Arc::new(rustls::RootCertStore { roots }),
            Arc::new(rustls::crypto::ring::default_provider()),
        )
        .build()
        .unwrap();
        NamedOrSystem { named, system }
    }

    fn check(v: &NamedOrSystem, cert: &CertificateDer<'_>) -> Result<(), rustls::Error> {
        check_as(v, cert, "127.0.0.1")
    }

    fn check_as(
        v: &NamedOrSystem,
        cert: &CertificateDer<'_>,
        host: &str,
    ) -> Result<(), rustls::Error> {
        let name = ServerName::try_from(host.to_string()).unwrap();
        v.verify_server_cert(cert, &[], &name, &[], UnixTime::now())
            .map(|_| ())
    }

    /// Only the CA mark is overridden, and only for a named certificate:
    /// one named but expired is refused as expired, one not named as a
    /// CA's.
    #[test]
    fn a_named_certificate_overrides_the_ca_mark_and_nothing_else() {
        let cert = ca_marked(false);
        let system_alone = check(&verifier(vec![cert.clone()]).without_named(), &cert);
        assert!(
            system_alone.as_ref().is_err_and(is_ca_as_server),
            "{system_alone:?}"
        );
        assert_eq!(check(&verifier(vec![cert.clone()]), &cert), Ok(()));
        let other = ca_marked(false);
        let refused = check(&verifier(vec![other]), &cert);
        assert!(refused.is_err(), "{refused:?}");
        let old = ca_marked(true);
        let refused = check(&verifier(vec![old.clone()]), &old);
        assert!(
            matches!(
                refused,
                Err(rustls::Error::InvalidCertificate(
                    rustls::CertificateError::Expired
                        | rustls::CertificateError::ExpiredContext { .. }
                ))
            ),
            "{refused:?}"
        );
    }

    /// A named certificate is the server's at the names it is made out
    /// to only: another host presenting it is refused as such.
    #[test]
    fn a_named_certificate_serves_its_own_names_only() {
        let cert = ca_marked(false);
        let refused = check_as(&verifier(vec![cert.clone()]), &cert, "mail.example.com");
        assert!(
            matches!(
                refused,
                Err(rustls::Error::InvalidCertificate(
                    rustls::CertificateError::NotValidForName
                        | rustls::CertificateError::NotValidForNameContext { .. }
                ))
            ),
            "{refused:?}"
        );
    }

    impl NamedOrSystem {
        fn without_named(mut self) -> NamedOrSystem {
            self.named.clear();
            self
        }
    }
}
