//! The webhook transport adapter (hyper 1 + rustls). It will implement the domain's
//! WebhookTransport port; the delivery work fills it in.

/// The User-Agent every delivery carries (spec: Webhook signature, rule 4).
pub const USER_AGENT: &str = "Svc-Webhooks/1.0";
