//! `object: "payment_link"` (D34): a product and its price behind a public URL.

use serde::Serialize;
use utoipa::ToSchema;

use super::{raw_json, PriceResource, Resource};
use crate::model::{
    Address, Amount, ChainId, Currency, Fiat, LinkPricing, PaymentLink, PaymentLinkId, Price,
    Timestamp,
};

/// The bounds of an amount the buyer names.
#[derive(Serialize, ToSchema)]
pub struct CustomAmountResource {
    pub minimum: Amount,
    pub maximum: Amount,
    /// For `custom_price`: the currency the buyer names an amount in (absent otherwise).
    #[schema(nullable = false)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub currency: Option<Fiat>,
}

#[derive(Serialize, ToSchema)]
pub struct PaymentLinkResource {
    pub id: PaymentLinkId,
    pub object: &'static str,
    pub livemode: bool,
    /// The product's name: the title of every session the link opens.
    pub name: String,
    pub description: Option<String>,
    /// A fixed amount of the token; null when priced otherwise.
    pub amount: Option<Amount>,
    /// A fixed price in USD or EUR, quoted into the token at each visit; null otherwise.
    pub price: Option<PriceResource>,
    /// The buyer names an amount of the token within these bounds; null otherwise.
    pub custom_amount: Option<CustomAmountResource>,
    /// The buyer names a price in `currency` within these bounds; null otherwise.
    pub custom_price: Option<CustomAmountResource>,
    /// The token the link's sessions are paid in.
    pub currency: Currency,
    pub chain_id: ChainId,
    /// The verified wallet the link's sessions pay.
    pub recipient: Address,
    pub success_url: Option<String>,
    #[schema(value_type = Object)]
    pub metadata: Box<serde_json::value::RawValue>,
    /// At most this many completed payments: past it the link opens no session.
    pub completed_limit: Option<u32>,
    /// The link's sessions completed so far.
    pub completed_count: u64,
    /// An inactive link's URL opens no session.
    pub active: bool,
    /// The public URL to share: each visit opens a fresh checkout session (303 to its
    /// hosted page), one open session per visitor at a time.
    #[schema(example = "https://pay.example/link/plink_0355RGziS6Gwe8zF5hRoCU")]
    pub url: String,
    pub created_at: Timestamp,
}

impl PaymentLinkResource {
    pub fn new(l: PaymentLink, public_url: &str) -> Self {
        let bounds = |fiat: Option<Fiat>| match l.pricing {
            LinkPricing::Custom { bounds, fiat: f } if f == fiat => Some(CustomAmountResource {
                minimum: bounds.minimum(),
                maximum: bounds.maximum(),
                currency: f,
            }),
            _ => None,
        };
        let custom_price = match l.pricing {
            LinkPricing::Custom {
                fiat: Some(fiat), ..
            } => bounds(Some(fiat)),
            _ => None,
        };
        Self {
            object: Self::OBJECT,
            livemode: l.mode.is_live(),
            url: l.url(public_url),
            amount: match l.pricing {
                LinkPricing::Amount(a) => Some(a),
                _ => None,
            },
            price: match l.pricing {
                LinkPricing::Price(price) => Some(PriceResource::of_price(price)),
                _ => None,
            },
            custom_amount: bounds(None),
            custom_price,
            chain_id: l.mode.chain(),
            metadata: raw_json(&l.metadata),
            id: l.id,
            name: l.name,
            description: l.description,
            currency: l.currency,
            recipient: l.recipient,
            success_url: l.success_url,
            completed_limit: l.completed_limit,
            completed_count: l.completed_count,
            active: l.active,
            created_at: l.created_at,
        }
    }
}

impl PriceResource {
    pub fn of_price(p: Price) -> Self {
        Self {
            amount: p.amount,
            currency: p.fiat,
        }
    }
}

impl Resource for PaymentLinkResource {
    const OBJECT: &'static str = "payment_link";
}
