//! Account → Security history (D32): the audit log of this mode and of the account, newest
//! first. Read only: nothing in the dashboard or the API edits it.

use askama::Template;
use stablepay_domain::{AuditActor, AuditEventId};

use super::{next_page, page_handler, page_request};
use crate::format::time;
use crate::shell::{Chrome, Reply};

pub struct AuditLine {
    pub id: String,
    pub at: String,
    pub action: &'static str,
    pub actor: String,
    pub target: String,
    pub client_address: String,
    pub before: String,
    pub after: String,
}

#[derive(Template)]
#[template(path = "audit.html")]
struct HistoryView {
    chrome: Chrome,
    entries: Vec<AuditLine>,
    next: Option<String>,
}

fn actor(a: AuditActor) -> String {
    match a {
        AuditActor::ApiKey(id) => format!("API key {id}"),
        AuditActor::User(id) => format!("user {id}"),
        AuditActor::Operator => "operator".to_owned(),
    }
}

fn json(v: Option<serde_json::Value>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

page_handler!(list, |p| async move {
    let ctx = p.ctx();
    let page = page_request::<AuditEventId>(&p)?;
    let rows = p
        .state
        .store
        .audit_log()
        .audit_events(ctx.merchant_id, ctx.mode, &page)
        .await?;
    Reply::render(&HistoryView {
        chrome: p.chrome("security_history", "Security history"),
        next: next_page(
            &p.link("/security/history"),
            rows.has_more,
            rows.data.last().map(|x| x.id.to_string()),
            "",
        ),
        entries: rows
            .data
            .into_iter()
            .map(|e| AuditLine {
                id: e.id.to_string(),
                at: time(e.created_at),
                action: e.action.as_str(),
                actor: actor(e.actor),
                target: e.target,
                client_address: e.client_address.map(|a| a.to_string()).unwrap_or_default(),
                before: json(e.before),
                after: json(e.after),
            })
            .collect(),
    })
});
