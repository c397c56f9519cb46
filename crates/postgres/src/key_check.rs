//! Reads that carry their own key check: a request by a key this process has seen
//! (`KeyClaim`) reads its resource on condition that the key still stands for the
//! merchant and mode it claims, in one statement instead of two, and the answer says
//! whether it did (`Checked`).

use stablepay_domain::{Actor, MerchantId, Mode};
use stablepay_request_store::KeyClaim;
use uuid::Uuid;

/// The condition a read unit's reads carry.
pub(crate) struct KeyCheck {
    pub(crate) key_id: Uuid,
    pub(crate) key_sha256: Vec<u8>,
    pub(crate) merchant: Uuid,
    pub(crate) livemode: bool,
}

impl KeyCheck {
    /// `None` for a claim that is not an API key's (a dashboard session is never checked
    /// this way).
    pub(crate) fn new(claim: &KeyClaim) -> Option<Self> {
        let Actor::ApiKey(key) = claim.claimed.actor else {
            return None;
        };
        Some(Self {
            key_id: key.uuid(),
            key_sha256: claim.key_sha256.to_vec(),
            merchant: claim.claimed.merchant_id.uuid(),
            livemode: claim.claimed.mode.is_live(),
        })
    }

    /// This check, if it covers reads of `merchant`'s rows of one `mode`, or (`None`) rows
    /// the merchant's keys of either mode share, such as its wallets.
    pub(crate) fn covering(&self, merchant: MerchantId, mode: Option<Mode>) -> Option<&Self> {
        (self.merchant == merchant.uuid() && mode.is_none_or(|m| self.livemode == m.is_live()))
            .then_some(self)
    }
}

/// `EXISTS`: the checked key is still the guessed one's, unrevoked (the key's primary key
/// finds it; the hash, merchant and mode must agree).
macro_rules! key_stands {
    ($v:expr) => {
        diesel::dsl::exists(
            $crate::schema::api_keys::table
                .filter($crate::schema::api_keys::id.eq($v.key_id))
                .filter($crate::schema::api_keys::key_sha256.eq(&$v.key_sha256))
                .filter($crate::schema::api_keys::merchant_id.eq($v.merchant))
                .filter($crate::schema::api_keys::livemode.eq($v.livemode))
                .filter($crate::schema::api_keys::revoked_at.is_null())
                .select($crate::schema::api_keys::id),
        )
    };
}

/// `Checked<Option<row>>`: the first row of `$q`, a read of one resource by `$merchant`
/// (and `$mode`, if given), on condition that the key stands when `$check` covers them; a
/// row found under the condition says the key stood.
macro_rules! first_checked {
    ($self:ident, $check:expr, $q:expr, $merchant:expr, $mode:expr) => {
        $crate::key_check::first_checked!(@ $self, $check, $q, $merchant, Some($mode))
    };
    ($self:ident, $check:expr, $q:expr, $merchant:expr) => {
        $crate::key_check::first_checked!(@ $self, $check, $q, $merchant, None)
    };
    (@ $self:ident, $check:expr, $q:expr, $merchant:expr, $mode:expr) => {{
        let check: Option<&$crate::key_check::KeyCheck> =
            $check.and_then(|c: &$crate::key_check::KeyCheck| c.covering($merchant, $mode));
        let conn = $self.shared_conn().await?;
        let q = $q;
        let row = match check {
            Some(v) => {
                $crate::diesel_internals::RenderedOnce(
                    q.filter($crate::key_check::key_stands!(v)).limit(1),
                )
                .get_result(&mut &*conn)
                .await
            }
            None => {
                $crate::diesel_internals::RenderedOnce(q.limit(1))
                    .get_result(&mut &*conn)
                    .await
            }
        }
        .optional()
        .map_err($crate::error::map_diesel_error)?;
        let stood = check.is_some() && row.is_some();
        stablepay_request_store::Checked::found_if(row, stood)
    }};
}

/// `Checked<Vec<row>>`: the rows of `$q`, a boxed, ordered and limited page of the rows
/// of `$merchant` (and `$mode`, if given), on condition that the key stands when `$check`
/// covers them; a page with a row says the key stood (an empty one says nothing).
macro_rules! load_checked {
    ($self:ident, $check:expr, $q:expr, $merchant:expr, $mode:expr) => {
        $crate::key_check::load_checked!(@ $self, $check, $q, $merchant, Some($mode))
    };
    ($self:ident, $check:expr, $q:expr, $merchant:expr) => {
        $crate::key_check::load_checked!(@ $self, $check, $q, $merchant, None)
    };
    (@ $self:ident, $check:expr, $q:expr, $merchant:expr, $mode:expr) => {{
        let check: Option<&$crate::key_check::KeyCheck> =
            $check.and_then(|c: &$crate::key_check::KeyCheck| c.covering($merchant, $mode));
        let mut q = $q;
        if let Some(v) = check {
            q = q.filter($crate::key_check::key_stands!(v));
        }
        let conn = $self.shared_conn().await?;
        let rows: Vec<_> = q
            .load(&mut &*conn)
            .await
            .map_err($crate::error::map_diesel_error)?;
        let stood = check.is_some() && !rows.is_empty();
        stablepay_request_store::Checked::found_if(rows, stood)
    }};
}

pub(crate) use {first_checked, key_stands, load_checked};
