//! The payment link's row (D34). `completed_count` is no column: the repository counts it
//! from the link's sessions when it reads the link.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use stablepay_domain::ports::StoreError;
use stablepay_domain::*;
use uuid::Uuid;

use super::conv::*;
use crate::error::corrupt;
use crate::schema::payment_links;

#[derive(Queryable, Selectable, Insertable, Debug, Clone)]
#[diesel(table_name = payment_links, check_for_backend(diesel::pg::Pg))]
pub struct PaymentLinkRow {
    pub id: Uuid,
    pub merchant_id: Uuid,
    pub livemode: bool,
    pub name: String,
    pub description: Option<String>,
    pub amount_micros: Option<i64>,
    pub price_micros: Option<i64>,
    pub price_currency: Option<String>,
    pub custom_min_micros: Option<i64>,
    pub custom_max_micros: Option<i64>,
    pub custom_fiat: Option<String>,
    pub currency: String,
    pub recipient_address: String,
    pub success_url: Option<String>,
    pub metadata: String,
    pub completed_limit: Option<i32>,
    pub active: bool,
    pub created_by_type: String,
    pub created_by_id: String,
    pub created_at: DateTime<Utc>,
}

impl From<&PaymentLink> for PaymentLinkRow {
    fn from(l: &PaymentLink) -> Self {
        let micros = |a: Amount| to_i64(a.micros());
        let (amount_micros, price, custom) = match l.pricing {
            LinkPricing::Amount(a) => (Some(micros(a)), None, None),
            LinkPricing::Price(p) => (None, Some(p), None),
            LinkPricing::Custom { bounds, fiat } => (None, None, Some((bounds, fiat))),
        };
        let by = AuditActor::from(l.created_by);
        Self {
            id: l.id.uuid(),
            merchant_id: l.merchant_id.uuid(),
            livemode: l.mode.is_live(),
            name: l.name.clone(),
            description: l.description.clone(),
            amount_micros,
            price_micros: price.map(|p| micros(p.amount)),
            price_currency: price.map(|p| p.fiat.as_str().to_owned()),
            custom_min_micros: custom.map(|(b, _)| micros(b.minimum())),
            custom_max_micros: custom.map(|(b, _)| micros(b.maximum())),
            custom_fiat: custom
                .and_then(|(_, fiat)| fiat)
                .map(|f| f.as_str().to_owned()),
            currency: l.currency.as_str().to_owned(),
            recipient_address: l.recipient.to_lower_hex(),
            success_url: l.success_url.clone(),
            metadata: l.metadata.clone(),
            completed_limit: l.completed_limit.map(|n| n.min(i32::MAX as u32) as i32),
            active: l.active,
            created_by_type: by.kind().to_owned(),
            created_by_id: by.id().unwrap_or_default(),
            created_at: l.created_at.as_datetime(),
        }
    }
}

impl PaymentLinkRow {
    /// The link, with `completed_count` sessions of it completed.
    pub fn into_link(self, completed_count: u64) -> Result<PaymentLink, StoreError> {
        let r = self;
        let fiat = |what: &str, v: &str| Fiat::parse(v).ok_or_else(|| corrupt(what, v));
        let pricing = match (r.amount_micros, r.price_micros, r.custom_min_micros) {
            (Some(a), None, None) => LinkPricing::Amount(amount(a)?),
            (None, Some(p), None) => LinkPricing::Price(Price {
                amount: amount(p)?,
                fiat: fiat("price_currency", r.price_currency.as_deref().unwrap_or(""))?,
            }),
            (None, None, Some(min)) => LinkPricing::Custom {
                bounds: AmountBounds::new(amount(min)?, amount(r.custom_max_micros.unwrap_or(0))?)
                    .map_err(|e| corrupt("custom bounds", e))?,
                fiat: r
                    .custom_fiat
                    .as_deref()
                    .map(|f| fiat("custom_fiat", f))
                    .transpose()?,
            },
            _ => return Err(corrupt("payment link pricing", r.id)),
        };
        let created_by = match AuditActor::from_parts(&r.created_by_type, Some(&r.created_by_id)) {
            Some(AuditActor::ApiKey(id)) => Actor::ApiKey(id),
            Some(AuditActor::User(id)) => Actor::DashboardUser(id),
            _ => return Err(corrupt("created_by", &r.created_by_type)),
        };
        Ok(PaymentLink {
            id: PaymentLinkId::from_uuid(r.id),
            merchant_id: MerchantId::from_uuid(r.merchant_id),
            mode: Mode::from_livemode(r.livemode),
            name: r.name,
            description: r.description,
            pricing,
            currency: currency(&r.currency)?,
            recipient: address(&r.recipient_address)?,
            success_url: r.success_url,
            metadata: r.metadata,
            completed_limit: r
                .completed_limit
                .map(|n| u32::try_from(n).map_err(|_| corrupt("completed_limit", n)))
                .transpose()?,
            completed_count,
            active: r.active,
            created_by,
            created_at: ts(r.created_at),
        })
    }
}
