//! Developers → API keys of the mode on screen: create (the secret is shown once, on the
//! answer to the form), revoke (effective on the next request), last used.

use askama::Template;
use stablepay_domain::services::{create_api_key, revoke_api_key};
use stablepay_domain::ApiKeyId;

use super::page_handler;
use crate::format::{opt_time, time};
use crate::shell::{Chrome, Page, Reply, WebError};

pub struct KeyLine {
    pub id: String,
    pub masked: String,
    pub created: String,
    pub last_used: String,
    pub revoked: Option<String>,
    pub revoke_action: String,
}

#[derive(Template)]
#[template(path = "api_keys.html")]
struct KeysView {
    chrome: Chrome,
    keys: Vec<KeyLine>,
    /// A key just created: its secret, shown this once.
    secret: Option<String>,
}

async fn render(p: &Page, secret: Option<String>) -> Result<Reply, WebError> {
    let keys = p
        .state
        .store
        .key_manager()
        .keys(p.session.user.merchant_id)
        .await?;
    Reply::render(&KeysView {
        chrome: p.chrome("api_keys", "API keys"),
        keys: keys
            .iter()
            .filter(|k| k.mode == p.mode)
            .map(|k| KeyLine {
                id: k.id.to_string(),
                masked: format!("svc_sk_{}_…{}", k.mode.as_str(), k.last4),
                created: time(k.created_at),
                last_used: opt_time(k.last_used_at),
                revoked: k.revoked_at.map(time),
                revoke_action: p.link(&format!("/developers/api_keys/{}/revoke", k.id)),
            })
            .collect(),
        secret,
    })
}

page_handler!(list, |p| async move { render(&p, None).await });

page_handler!(create, |p| async move {
    let s = &p.state;
    let created = create_api_key(
        p.session.user.merchant_id,
        p.mode,
        None,
        &p.changer(),
        s.store.key_manager(),
        s.clock.as_ref(),
    )
    .await?;
    tracing::info!(key = %created.key.id, user = %p.session.user.id, "dashboard: API key created");
    render(&p, Some(created.secret)).await
});

page_handler!(revoke, |p| async move {
    let id = ApiKeyId::parse(&p.path("id")).map_err(|_| WebError::NotFound)?;
    let s = &p.state;
    revoke_api_key(
        &p.ctx(),
        id,
        &p.changer(),
        s.store.key_manager(),
        s.clock.as_ref(),
    )
    .await?;
    tracing::info!(key = %id, user = %p.session.user.id, "dashboard: API key revoked");
    Ok(Reply::Redirect(
        p.link("/developers/api_keys?notice=key_revoked"),
    ))
});
