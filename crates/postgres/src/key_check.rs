//! Reads that carry their own key check: a request by a key this process has seen
//! (`KeyClaim`) reads its resource on condition that the key still stands for the
//! merchant and mode it claims, in one statement instead of two.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use stablepay_domain::ports::KeyClaim;
use stablepay_domain::{Actor, MerchantId, Mode};
use uuid::Uuid;

use crate::PgStore;

/// The condition a unit's reads carry, and whether one of them found its row.
pub(crate) struct KeyCheck {
    pub(crate) key_id: Uuid,
    pub(crate) key_sha256: Vec<u8>,
    pub(crate) merchant: Uuid,
    pub(crate) livemode: bool,
    confirmed: AtomicBool,
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
            confirmed: AtomicBool::new(false),
        })
    }

    /// A read with the condition found its row: the key stood when it ran.
    pub(crate) fn confirm(&self) {
        self.confirmed.store(true, Ordering::Relaxed);
    }

    pub(crate) fn confirmed(&self) -> bool {
        self.confirmed.load(Ordering::Relaxed)
    }
}

impl PgStore {
    /// The check this store's reads of `merchant`'s rows must carry, if it is a unit
    /// opened with a claim to them: rows of one `mode`, or (`None`) rows the merchant's
    /// keys of either mode share, such as its wallets.
    pub(crate) fn key_check_for(
        &self,
        merchant: MerchantId,
        mode: Option<Mode>,
    ) -> Option<Arc<KeyCheck>> {
        self.bound
            .as_ref()?
            .check
            .as_ref()
            .filter(|v| v.merchant == merchant.uuid())
            .filter(|v| mode.is_none_or(|m| v.livemode == m.is_live()))
            .cloned()
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

/// The first row of `$q`, a read of one resource by `$merchant` (and `$mode`, if given): in a unit
/// checking a claim to them, on condition that its key stands, and a row found confirms it.
macro_rules! first_checked {
    ($self:ident, $q:expr, $merchant:expr, $mode:expr) => {
        $crate::key_check::first_checked!(@ $self, $q, $merchant, Some($mode))
    };
    ($self:ident, $q:expr, $merchant:expr) => {
        $crate::key_check::first_checked!(@ $self, $q, $merchant, None)
    };
    (@ $self:ident, $q:expr, $merchant:expr, $mode:expr) => {{
        let check = $self.key_check_for($merchant, $mode);
        let conn = $self.shared_conn().await?;
        let q = $q;
        let row = match &check {
            Some(v) => {
                $crate::diesel_internals::Fixed(
                    q.filter($crate::key_check::key_stands!(v)).limit(1),
                )
                .get_result(&mut &*conn)
                .await
            }
            None => {
                $crate::diesel_internals::Fixed(q.limit(1))
                    .get_result(&mut &*conn)
                    .await
            }
        }
        .optional()
        .map_err($crate::error::map_diesel_error)?;
        if let (Some(v), Some(_)) = (&check, &row) {
            v.confirm();
        }
        row
    }};
}

/// The rows of `$q`, a boxed, ordered and limited page of the rows of `$merchant` (and
/// `$mode`, if given): in a request checked for them, on condition that its key stands, and a page
/// with a row confirms it (an empty one confirms nothing).
macro_rules! load_checked {
    ($self:ident, $q:expr, $merchant:expr, $mode:expr) => {
        $crate::key_check::load_checked!(@ $self, $q, $merchant, Some($mode))
    };
    ($self:ident, $q:expr, $merchant:expr) => {
        $crate::key_check::load_checked!(@ $self, $q, $merchant, None)
    };
    (@ $self:ident, $q:expr, $merchant:expr, $mode:expr) => {{
        let check = $self.key_check_for($merchant, $mode);
        let mut q = $q;
        if let Some(v) = &check {
            q = q.filter($crate::key_check::key_stands!(v));
        }
        let conn = $self.shared_conn().await?;
        let rows: Vec<_> = q
            .load(&mut &*conn)
            .await
            .map_err($crate::error::map_diesel_error)?;
        if let (Some(v), false) = (&check, rows.is_empty()) {
            v.confirm();
        }
        rows
    }};
}

pub(crate) use {first_checked, key_stands, load_checked};
