use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use stablepay_domain::ports::{SessionRepository, StoreError};
use stablepay_domain::rules::eip712;
use stablepay_domain::{
    CheckoutSession, CheckoutSessionId, MerchantId, Mode, Page, PageRequest, SessionFilter,
    SessionStatus, Timestamp, WalletStanding,
};
use stablepay_request_store::{Checked, SessionRead};

use crate::error::map_diesel_error;
use crate::key_check::{first_checked, load_checked, KeyCheck};
use crate::repos::reader::{get_one, newest_first};
use crate::rows::{NewSessionRow, SessionRow, StandingRow};
use crate::schema::checkout_sessions as cs;
use crate::schema::wallets as w;
use crate::PgStore;

#[async_trait]
impl SessionRepository for PgStore {
    async fn insert(&self, session: &CheckoutSession) -> Result<(), StoreError> {
        // A new row whose outcome nothing reads: sent with the answer where it can be.
        self.insert_or_hold(diesel::insert_into(cs::table).values(NewSessionRow {
            session: SessionRow::from_domain(session),
            session_ref: eip712::session_ref(&session.id).to_vec(),
        }))
        .await
    }

    async fn get(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: CheckoutSessionId,
    ) -> Result<Option<CheckoutSession>, StoreError> {
        let row: Checked<Option<CheckoutSession>> =
            get_one!(self, None, cs, SessionRow, merchant, mode, id.uuid())?;
        Ok(row.into_value())
    }

    async fn get_public(
        &self,
        id: CheckoutSessionId,
    ) -> Result<Option<CheckoutSession>, StoreError> {
        let mut conn = self.conn().await?;
        let row = cs::table
            .filter(cs::id.eq(id.uuid()))
            .select(SessionRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        row.map(CheckoutSession::try_from).transpose()
    }

    async fn expire(
        &self,
        id: CheckoutSessionId,
        now: Timestamp,
    ) -> Result<CheckoutSession, StoreError> {
        let mut conn = self.conn().await?;
        // Only an open session past expiry changes; a concurrent completion is kept, and a
        // session whose payment waits for review stays open (D33).
        let updated = diesel::update(cs::table)
            .filter(cs::id.eq(id.uuid()))
            .filter(cs::status.eq("open"))
            .filter(cs::expires_at.le(now.as_datetime()))
            .filter(cs::awaiting_review.eq(false))
            .set(cs::status.eq("expired"))
            .returning(SessionRow::as_returning())
            .get_result(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        let row = match updated {
            Some(row) => row,
            None => cs::table
                .filter(cs::id.eq(id.uuid()))
                .select(SessionRow::as_select())
                .first(&mut conn)
                .await
                .map_err(map_diesel_error)?,
        };
        row.try_into()
    }

    async fn list(
        &self,
        merchant: MerchantId,
        mode: Mode,
        filter: &SessionFilter,
        page: &PageRequest,
        now: Timestamp,
    ) -> Result<Page<CheckoutSession>, StoreError> {
        Ok(self
            .list_sessions(None, merchant, mode, filter, page, now)
            .await?
            .into_value())
    }
}

impl PgStore {
    /// A session of `merchant` and `mode` with the standing of the merchant's wallet at its
    /// recipient address, read under `check` (`first_checked`) in one statement (`Reads::session`):
    /// a GET of an open session with a deposit address needs the wallet's standing (D30),
    /// and as a second statement it cost a round trip.
    pub(crate) async fn read_session_and_recipient(
        &self,
        check: Option<&KeyCheck>,
        merchant: MerchantId,
        mode: Mode,
        id: CheckoutSessionId,
    ) -> Result<Checked<Option<SessionRead>>, StoreError> {
        let row: Checked<Option<(SessionRow, Option<StandingRow>)>> = first_checked!(
            self,
            check,
            cs::table
                .left_join(
                    w::table.on(w::merchant_id
                        .eq(cs::merchant_id)
                        .and(w::address.eq(cs::recipient_address))),
                )
                .filter(cs::id.eq(id.uuid()))
                .filter(cs::merchant_id.eq(merchant.uuid()))
                .filter(cs::livemode.eq(mode.is_live()))
                .select((SessionRow::as_select(), Option::<StandingRow>::as_select())),
            merchant,
            mode
        );
        row.try_map(|found| {
            found
                .map(|(session, recipient)| {
                    Ok(SessionRead {
                        session: session.try_into()?,
                        recipient: recipient.map(WalletStanding::try_from).transpose()?,
                    })
                })
                .transpose()
        })
    }

    /// A page of `merchant`'s sessions in `mode`, read under `check` (`load_checked`),
    /// each as a reader sees it at `now`, and filtered by that status.
    ///
    /// Expiry is applied to what is read, never written by a read (D28): an open session
    /// past its `expires_at` is listed as expired, unless its payment waits for the
    /// merchant's review (D33). So `status=expired` is two reads, the sessions stored as
    /// expired and the open ones past expiry, each served by its own index and merged
    /// here. As one `OR` on the merchant's list index, a page walked every live open
    /// session newer than the first expired one: after `cargo xtask bench api`'s 150,000
    /// creates, 200–290 ms a page and p99 1.4 s at 1M sessions (2026-12-07).
    pub(crate) async fn list_sessions(
        &self,
        check: Option<&KeyCheck>,
        merchant: MerchantId,
        mode: Mode,
        filter: &SessionFilter,
        page: &PageRequest,
        now: Timestamp,
    ) -> Result<Checked<Page<CheckoutSession>>, StoreError> {
        let seen = |status| match status {
            None => Seen::Any,
            Some(SessionStatus::Open) => Seen::Open,
            Some(status) => Seen::Stored(status),
        };
        let list = SessionList {
            check,
            merchant,
            mode,
            filter,
            page,
            now,
        };
        let rows = if filter.status == Some(SessionStatus::Expired) {
            // Sent together: on the unit's connection the two go out in one round trip.
            let (stored, lapsed) = futures_util::future::try_join(
                self.session_rows(&list, seen(filter.status)),
                self.session_rows(&list, Seen::Lapsed),
            )
            .await?;
            newest_of_both(stored, lapsed, page.fetch_limit())
        } else {
            self.session_rows(&list, seen(filter.status)).await?
        };
        rows.try_map(|rows| {
            Page::from_overfetch(rows, page)
                .try_map(|row| CheckoutSession::try_from(row).map(|s| s.seen_at(now)))
        })
    }

    /// One index-served read of a session page: the rows `seen` selects, newest first in
    /// the column order of the index that serves them (`newest_first`).
    async fn session_rows(
        &self,
        list: &SessionList<'_>,
        seen: Seen,
    ) -> Result<Checked<Vec<SessionRow>>, StoreError> {
        let (check, merchant, mode) = (list.check, list.merchant, list.mode);
        let (filter, page, now) = (list.filter, list.page, list.now.as_datetime());
        let mut q = cs::table
            .filter(cs::merchant_id.eq(merchant.uuid()))
            .filter(cs::livemode.eq(mode.is_live()))
            .select(SessionRow::as_select())
            .into_boxed();
        q = match seen {
            Seen::Any => q,
            Seen::Open => q
                .filter(cs::status.eq("open"))
                .filter(cs::expires_at.gt(now).or(cs::awaiting_review)),
            Seen::Lapsed => q
                .filter(cs::status.eq("open"))
                .filter(cs::expires_at.le(now))
                .filter(cs::awaiting_review.eq(false)),
            Seen::Stored(status) => q.filter(cs::status.eq(status.as_str())),
        };
        if let Some(reference) = &filter.customer_reference {
            q = q.filter(cs::customer_reference.eq(reference.as_str().to_owned()));
        }
        if let Some(link) = filter.payment_link {
            q = q.filter(cs::payment_link_id.eq(link.uuid()));
        }
        if let Some(after) = page.starting_after() {
            q = q.filter(cs::id.lt(after));
        }
        let q = if matches!(seen, Seen::Lapsed) {
            // Sorted, never walked: no index gives this order, so the planner takes the
            // few rows past expiry from `checkout_sessions_open_expiry` and sorts them.
            // In the status index's order it walked every payable open session (it
            // counts most open rows as past expiry, since most rows are), 152 ms a page
            // at 100,000 of them. A UUID's text in "C" collation sorts as its bytes.
            q.order(diesel::dsl::sql::<diesel::sql_types::Text>(
                r#"checkout_sessions.id::text COLLATE "C" DESC"#,
            ))
        } else if filter.customer_reference.is_some() {
            newest_first!(cs, q, cs::customer_reference)
        } else if matches!(seen, Seen::Any) {
            newest_first!(cs, q)
        } else {
            newest_first!(cs, q, cs::status)
        };
        Ok(load_checked!(
            self,
            check,
            q.limit(page.fetch_limit()),
            merchant,
            mode
        ))
    }
}

/// One session list request: under which key check, whose, which filter and page, and
/// at what time it is read.
#[derive(Clone, Copy)]
struct SessionList<'a> {
    check: Option<&'a KeyCheck>,
    merchant: MerchantId,
    mode: Mode,
    filter: &'a SessionFilter,
    page: &'a PageRequest,
    now: Timestamp,
}

/// Which stored sessions a read selects, for a reader at a given time.
#[derive(Clone, Copy)]
enum Seen {
    /// Every session.
    Any,
    /// Open and, at that time, still payable (or waiting for review, D33).
    Open,
    /// Stored open but past expiry and not waiting for review: read as expired.
    Lapsed,
    /// Stored with this status (completed, or expired).
    Stored(SessionStatus),
}

/// The first `limit` of two newest-first reads, newest first. The key stood if either
/// read says so.
fn newest_of_both(
    a: Checked<Vec<SessionRow>>,
    b: Checked<Vec<SessionRow>>,
    limit: i64,
) -> Checked<Vec<SessionRow>> {
    let stood = a.key_stood() || b.key_stood();
    let mut rows = a.into_value();
    rows.extend(b.into_value());
    rows.sort_unstable_by_key(|row| std::cmp::Reverse(row.id));
    rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    Checked::found_if(rows, stood)
}
