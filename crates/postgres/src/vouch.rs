//! Reads that carry their own authentication (`RequestScope::vouched`): a request by a
//! key this process has seen reads its resource on condition that the key still stands
//! for the merchant and mode it was guessed to have, in one statement instead of two.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use stablepay_domain::{Actor, AuthContext, MerchantId, Mode};
use uuid::Uuid;

use crate::PgStore;

/// The condition a vouched request's reads carry, and whether one of them found its row.
pub(crate) struct Vouching {
    pub(crate) key_id: Uuid,
    pub(crate) key_sha256: Vec<u8>,
    pub(crate) merchant: Uuid,
    pub(crate) livemode: bool,
    confirmed: AtomicBool,
}

impl Vouching {
    /// `None` for a guess that is not an API key's (a dashboard session is never vouched).
    pub(crate) fn new(key_sha256: [u8; 32], guess: &AuthContext) -> Option<Self> {
        let Actor::ApiKey(key) = guess.actor else {
            return None;
        };
        Some(Self {
            key_id: key.uuid(),
            key_sha256: key_sha256.to_vec(),
            merchant: guess.merchant_id.uuid(),
            livemode: guess.mode.is_live(),
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
    /// The condition the current request's reads by `merchant` and `mode` must carry, if
    /// it is vouched for them.
    pub(crate) fn vouching_for(&self, merchant: MerchantId, mode: Mode) -> Option<Arc<Vouching>> {
        self.with_pin(|pin| {
            pin.vouching
                .as_ref()
                .filter(|v| v.merchant == merchant.uuid() && v.livemode == mode.is_live())
                .cloned()
        })
    }
}

/// `EXISTS`: the vouched key is still the guessed one's, unrevoked (the key's primary key
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

/// The first row of `$q`, a read of one resource by `$merchant` and `$mode`: in a request
/// vouched for them, on condition that its key stands, and a row found confirms it.
macro_rules! first_vouched {
    ($self:ident, $q:expr, $merchant:expr, $mode:expr) => {{
        let vouching = $self.vouching_for($merchant, $mode);
        let conn = $self.shared_conn().await?;
        let q = $q;
        let row = match &vouching {
            Some(v) => {
                $crate::prepared::Fixed(q.filter($crate::vouch::key_stands!(v)).limit(1))
                    .get_result(&mut &*conn)
                    .await
            }
            None => {
                $crate::prepared::Fixed(q.limit(1))
                    .get_result(&mut &*conn)
                    .await
            }
        }
        .optional()
        .map_err($crate::error::map_diesel_error)?;
        if let (Some(v), Some(_)) = (&vouching, &row) {
            v.confirm();
        }
        row
    }};
}

/// The rows of `$q`, a boxed, ordered and limited page of the rows of `$merchant` and
/// `$mode`: in a request vouched for them, on condition that its key stands, and a page
/// with a row confirms it (an empty one confirms nothing).
macro_rules! load_vouched {
    ($self:ident, $q:expr, $merchant:expr, $mode:expr) => {{
        let vouching = $self.vouching_for($merchant, $mode);
        let mut q = $q;
        if let Some(v) = &vouching {
            q = q.filter($crate::vouch::key_stands!(v));
        }
        let conn = $self.shared_conn().await?;
        let rows: Vec<_> = q
            .load(&mut &*conn)
            .await
            .map_err($crate::error::map_diesel_error)?;
        if let (Some(v), false) = (&vouching, rows.is_empty()) {
            v.confirm();
        }
        rows
    }};
}

pub(crate) use {first_vouched, key_stands, load_vouched};
