use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use stablepay_domain::ports::{SessionRepository, StoreError};
use stablepay_domain::rules::eip712;
use stablepay_domain::{
    CheckoutSession, CheckoutSessionId, MerchantId, Mode, Page, PageRequest, SessionFilter,
    Timestamp,
};

use crate::diesel_internals::Prepared;
use crate::error::map_diesel_error;
use crate::key_check::{first_checked, load_checked};
use crate::repos::reader::newest_first;
use crate::rows::SessionRow;
use crate::schema::checkout_sessions as cs;
use crate::PgStore;

#[async_trait]
impl SessionRepository for PgStore {
    async fn insert(&self, session: &CheckoutSession) -> Result<(), StoreError> {
        let conn = self.shared_conn().await?;
        Prepared(
            diesel::insert_into(cs::table).values(SessionRow::from_domain(
                session,
                Some(eip712::session_ref(&session.id).to_vec()),
            )),
        )
        .execute(&mut &*conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(())
    }

    async fn get(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: CheckoutSessionId,
    ) -> Result<Option<CheckoutSession>, StoreError> {
        let row: Option<SessionRow> = first_checked!(
            self,
            cs::table
                .filter(cs::id.eq(id.uuid()))
                .filter(cs::merchant_id.eq(merchant.uuid()))
                .filter(cs::livemode.eq(mode.is_live()))
                .select(SessionRow::as_select()),
            merchant,
            mode
        );
        row.map(CheckoutSession::try_from).transpose()
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
        // Only an open session past expiry changes; a concurrent completion is kept.
        let updated = diesel::update(cs::table)
            .filter(cs::id.eq(id.uuid()))
            .filter(cs::status.eq("open"))
            .filter(cs::expires_at.le(now.as_datetime()))
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

    async fn expire_due(
        &self,
        merchant: MerchantId,
        mode: Mode,
        now: Timestamp,
    ) -> Result<u64, StoreError> {
        let conn = self.shared_conn().await?;
        let n = Prepared(
            diesel::update(cs::table)
                .filter(cs::merchant_id.eq(merchant.uuid()))
                .filter(cs::livemode.eq(mode.is_live()))
                // A literal, not a bind: a generic plan can use the partial index on open
                // sessions only when the statement itself says `'open'` (with a bind,
                // PostgreSQL planned it anew on every list, 63 µs each).
                .filter(diesel::dsl::sql::<diesel::sql_types::Bool>(
                    "status = 'open'",
                ))
                .filter(cs::expires_at.le(now.as_datetime()))
                .set(cs::status.eq("expired")),
        )
        .execute(&mut &*conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(n as u64)
    }

    async fn list(
        &self,
        merchant: MerchantId,
        mode: Mode,
        filter: &SessionFilter,
        page: &PageRequest,
    ) -> Result<Page<CheckoutSession>, StoreError> {
        let mut q = cs::table
            .filter(cs::merchant_id.eq(merchant.uuid()))
            .filter(cs::livemode.eq(mode.is_live()))
            .select(SessionRow::as_select())
            .into_boxed();
        if let Some(status) = filter.status {
            q = q.filter(cs::status.eq(status.as_str()));
        }
        if let Some(reference) = &filter.customer_reference {
            q = q.filter(cs::customer_reference.eq(reference.as_str().to_owned()));
        }
        if let Some(after) = page.starting_after() {
            q = q.filter(cs::id.lt(after));
        }
        let q = if filter.customer_reference.is_some() {
            newest_first!(cs, q, cs::customer_reference)
        } else if filter.status.is_some() {
            newest_first!(cs, q, cs::status)
        } else {
            newest_first!(cs, q)
        };
        let rows = load_checked!(self, q.limit(page.fetch_limit()), merchant, mode);
        Page::from_overfetch(rows, page).try_map(CheckoutSession::try_from)
    }
}
