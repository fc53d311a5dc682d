//! The streamable HTTP client: rmcp's transport on a reqwest client whose
//! TLS is rustls with ring (the provider already in Conch's tree) and the
//! web's usual roots, no proxy from the environment, and limits on what a
//! server can send back.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use reqwest13::header::{HeaderName, HeaderValue};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;

/// The most one response (or one streamed event) from a server may be.
pub const MAX_RESPONSE: usize = 8 * 1024 * 1024;

fn client() -> Result<reqwest13::Client, String> {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    let mut tls = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| format!("its TLS couldn't be set up ({e})"))?
    .with_root_certificates(roots)
    .with_no_client_auth();
    tls.alpn_protocols = vec![b"http/1.1".to_vec()];
    reqwest13::Client::builder()
        .tls_backend_preconfigured(tls)
        // An app's address is the owner's: a proxy named in Conch's
        // environment doesn't get to see its headers.
        .no_proxy()
        .connect_timeout(Duration::from_secs(15))
        .build()
        .map_err(|e| format!("its web client couldn't be made ({e})"))
}

/// The transport to `url`, sending `headers` (name, value) with every
/// request.
pub fn transport(
    url: &str,
    headers: &[(String, String)],
) -> Result<StreamableHttpClientTransport<reqwest13::Client>, String> {
    let mut custom = HashMap::new();
    for (name, value) in headers {
        let n = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| format!("\"{name}\" isn't a header's name"))?;
        let mut v = HeaderValue::from_str(value).map_err(|_| {
            format!("the value for the header {name} has characters a header can't")
        })?;
        v.set_sensitive(true);
        custom.insert(n, v);
    }
    let config = StreamableHttpClientTransportConfig::with_uri(url)
        .custom_headers(custom)
        .max_json_response_size(MAX_RESPONSE)
        .max_sse_event_size(MAX_RESPONSE)
        .reinit_on_expired_session(true);
    Ok(StreamableHttpClientTransport::with_client(
        client()?,
        config,
    ))
}
