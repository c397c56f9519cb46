//! Reusable payment links (D34): a product and its price behind one public URL. Each
//! visit becomes a fresh checkout session with the link's terms; the link itself holds no
//! money and no state of any payment.

use super::{
    Actor, Address, Amount, Currency, Fiat, MerchantId, Mode, PaymentLinkId, Price, SessionTerms,
    Timestamp,
};

/// The least and the most a buyer may name, both inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AmountBounds {
    minimum: Amount,
    maximum: Amount,
}

impl AmountBounds {
    pub fn new(minimum: Amount, maximum: Amount) -> Result<Self, &'static str> {
        if minimum > maximum {
            return Err("minimum must not be above maximum");
        }
        Ok(Self { minimum, maximum })
    }

    pub fn minimum(self) -> Amount {
        self.minimum
    }

    pub fn maximum(self) -> Amount {
        self.maximum
    }
}

/// What a link charges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkPricing {
    /// A fixed amount of the link's token.
    Amount(Amount),
    /// A fixed price in a currency, quoted into the token at each visit.
    Price(Price),
    /// The buyer names the amount within `bounds`: of the token (`fiat: None`), or a price
    /// in that currency, quoted like a fixed one.
    Custom {
        bounds: AmountBounds,
        fiat: Option<Fiat>,
    },
}

impl LinkPricing {
    /// The currency a price is set in; `None` for amounts of the token.
    pub fn fiat(&self) -> Option<Fiat> {
        match self {
            LinkPricing::Amount(_) => None,
            LinkPricing::Price(price) => Some(price.fiat),
            LinkPricing::Custom { fiat, .. } => *fiat,
        }
    }
}

/// Why a buyer's amount was not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChosenAmountError {
    #[error("enter an amount")]
    Missing,
    #[error("{0}")]
    Unreadable(String),
    #[error("must be between {min} and {max} {unit}")]
    OutOfBounds {
        min: Amount,
        max: Amount,
        unit: &'static str,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentLink {
    pub id: PaymentLinkId,
    pub merchant_id: MerchantId,
    pub mode: Mode,
    /// The product's name: the title of every session the link opens.
    pub name: String,
    pub description: Option<String>,
    pub pricing: LinkPricing,
    /// The token the link's sessions are paid in.
    pub currency: Currency,
    /// The verified wallet its sessions pay, fixed when the link was made.
    pub recipient: Address,
    pub success_url: Option<String>,
    /// A JSON object's text, copied onto every session.
    pub metadata: String,
    /// At most this many completed sessions; the link opens no session past it.
    pub completed_limit: Option<u32>,
    /// Sessions of the link completed so far (read with the link, never stored on it).
    pub completed_count: u64,
    pub active: bool,
    /// Who made the link (kept as a refund request keeps who asked; the sessions it opens
    /// are the merchant's, on the merchant's terms at each visit).
    pub created_by: Actor,
    pub created_at: Timestamp,
}

impl PaymentLink {
    /// The public URL to share: `{public_url}/link/{id}`.
    pub fn url(&self, public_url: &str) -> String {
        format!("{}/link/{}", public_url.trim_end_matches('/'), self.id)
    }

    /// Whether the buyer names the amount.
    pub fn asks_amount(&self) -> bool {
        matches!(self.pricing, LinkPricing::Custom { .. })
    }

    /// Whether its limit of completed payments is reached.
    pub fn is_sold_out(&self) -> bool {
        self.completed_limit
            .is_some_and(|limit| self.completed_count >= u64::from(limit))
    }

    /// The terms of a session for one visit; `chosen` is the buyer's amount, as typed,
    /// for a link that asks for one (ignored otherwise).
    pub fn session_terms(&self, chosen: Option<&str>) -> Result<SessionTerms, ChosenAmountError> {
        match self.pricing {
            LinkPricing::Amount(amount) => Ok(SessionTerms::Payment { amount }),
            LinkPricing::Price(price) => Ok(SessionTerms::PricedPayment { price }),
            LinkPricing::Custom { bounds, fiat } => {
                let typed = chosen
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .ok_or(ChosenAmountError::Missing)?;
                let amount = Amount::parse(typed)
                    .map_err(|e| ChosenAmountError::Unreadable(e.to_string()))?;
                if amount < bounds.minimum || amount > bounds.maximum {
                    return Err(ChosenAmountError::OutOfBounds {
                        min: bounds.minimum,
                        max: bounds.maximum,
                        unit: self.unit(),
                    });
                }
                Ok(match fiat {
                    None => SessionTerms::Payment { amount },
                    Some(fiat) => SessionTerms::PricedPayment {
                        price: Price { amount, fiat },
                    },
                })
            }
        }
    }

    /// What the amounts the link shows are counted in: the currency of its price, else
    /// its token.
    pub fn unit(&self) -> &'static str {
        self.pricing
            .fiat()
            .map_or(self.currency.as_str(), Fiat::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn amount(s: &str) -> Amount {
        Amount::parse(s).expect("an amount")
    }

    fn link(pricing: LinkPricing) -> PaymentLink {
        PaymentLink {
            id: PaymentLinkId::generate(),
            merchant_id: MerchantId::generate(),
            mode: Mode::Test,
            name: "Tea".into(),
            description: None,
            pricing,
            currency: Currency::Usdc,
            recipient: Address::parse("0x1111111111111111111111111111111111111111")
                .expect("an address"),
            success_url: None,
            metadata: "{}".into(),
            completed_limit: None,
            completed_count: 0,
            active: true,
            created_by: Actor::ApiKey(crate::model::ApiKeyId::generate()),
            created_at: Timestamp::from_unix_seconds(1_800_000_000).expect("a time"),
        }
    }

    #[test]
    fn fixed_links_ignore_a_chosen_amount() {
        let fixed = link(LinkPricing::Amount(amount("12.5")));
        assert_eq!(
            fixed.session_terms(Some("99")),
            Ok(SessionTerms::Payment {
                amount: amount("12.5")
            })
        );
        let price = Price {
            amount: amount("20"),
            fiat: Fiat::Eur,
        };
        let priced = link(LinkPricing::Price(price));
        assert_eq!(
            priced.session_terms(None),
            Ok(SessionTerms::PricedPayment { price })
        );
        assert_eq!(priced.unit(), "EUR");
    }

    #[test]
    fn a_chosen_amount_must_be_within_the_bounds() {
        let bounds = AmountBounds::new(amount("5"), amount("50")).expect("bounds");
        let custom = link(LinkPricing::Custom { bounds, fiat: None });
        assert!(custom.asks_amount());
        assert_eq!(custom.session_terms(None), Err(ChosenAmountError::Missing));
        assert_eq!(
            custom.session_terms(Some("  ")),
            Err(ChosenAmountError::Missing)
        );
        assert!(matches!(
            custom.session_terms(Some("ten")),
            Err(ChosenAmountError::Unreadable(_))
        ));
        for outside in ["4.999999", "50.000001"] {
            assert_eq!(
                custom
                    .session_terms(Some(outside))
                    .map_err(|e| e.to_string()),
                Err("must be between 5 and 50 USDC".to_owned()),
                "{outside}"
            );
        }
        for inside in ["5", "50", " 17.25 "] {
            assert_eq!(
                custom.session_terms(Some(inside)),
                Ok(SessionTerms::Payment {
                    amount: amount(inside.trim())
                })
            );
        }
        let in_euros = link(LinkPricing::Custom {
            bounds,
            fiat: Some(Fiat::Eur),
        });
        assert_eq!(
            in_euros.session_terms(Some("7")),
            Ok(SessionTerms::PricedPayment {
                price: Price {
                    amount: amount("7"),
                    fiat: Fiat::Eur
                }
            })
        );
        assert!(AmountBounds::new(amount("2"), amount("1")).is_err());
    }

    #[test]
    fn the_limit_counts_completed_sessions() {
        let mut limited = link(LinkPricing::Amount(amount("1")));
        assert!(!limited.is_sold_out());
        limited.completed_limit = Some(2);
        limited.completed_count = 1;
        assert!(!limited.is_sold_out());
        limited.completed_count = 2;
        assert!(limited.is_sold_out());
    }
}
