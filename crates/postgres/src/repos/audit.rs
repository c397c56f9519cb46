//! The audit log (D32): `record` appends an entry on the connection, and so in the
//! transaction, of the change it records; the dashboard's list; the merchant's settings,
//! whose changes are recorded here. The table refuses UPDATE, DELETE and TRUNCATE itself.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use stablepay_domain::ports::{AuditLog, MerchantSettings, StoreError};
use stablepay_domain::rules::screening::MerchantScreening;
use stablepay_domain::services::choice_json;
use stablepay_domain::{AuditEvent, MerchantId, Mode, Page, PageRequest, UnderpaymentTolerance};

use crate::error::map_diesel_error;
use crate::key_check::{load_checked, KeyCheck};
use crate::rows::AuditEventRow;
use crate::schema::{audit_events as ae, merchants as m};
use crate::PgStore;
use stablepay_request_store::Checked;

pub(crate) async fn record(conn: &mut AsyncPgConnection, entry: &AuditEvent) -> QueryResult<()> {
    diesel::insert_into(ae::table)
        .values(AuditEventRow::from(entry))
        .execute(conn)
        .await?;
    Ok(())
}

impl PgStore {
    /// A page of one merchant's entries of `mode` and of the account as a whole, newest
    /// first, read under `check`.
    pub(crate) async fn list_audit_events(
        &self,
        check: Option<&KeyCheck>,
        merchant: MerchantId,
        mode: Mode,
        page: &PageRequest,
    ) -> Result<Checked<Page<AuditEvent>>, StoreError> {
        let mut q = ae::table
            .filter(ae::merchant_id.eq(merchant.uuid()))
            .filter(ae::livemode.eq(mode.is_live()).or(ae::livemode.is_null()))
            .select(AuditEventRow::as_select())
            .into_boxed();
        if let Some(after) = page.starting_after() {
            q = q.filter(ae::id.lt(after));
        }
        let rows: Checked<Vec<AuditEventRow>> = load_checked!(
            self,
            check,
            q.order(ae::id.desc()).limit(page.fetch_limit()),
            merchant,
            mode
        );
        rows.try_map(|rows| Page::from_overfetch(rows, page).try_map(TryInto::try_into))
    }
}

#[async_trait]
impl AuditLog for PgStore {
    async fn audit_events(
        &self,
        merchant: MerchantId,
        mode: Mode,
        page: &PageRequest,
    ) -> Result<Page<AuditEvent>, StoreError> {
        Ok(self
            .list_audit_events(None, merchant, mode, page)
            .await?
            .into_value())
    }
}

#[async_trait]
impl MerchantSettings for PgStore {
    async fn set_underpayment_tolerance(
        &self,
        merchant: MerchantId,
        tolerance: UnderpaymentTolerance,
        audit: &AuditEvent,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let id = merchant.uuid();
        let found = conn
            .transaction(async |conn| {
                let was: Option<i32> = m::table
                    .filter(m::id.eq(id))
                    .select(m::underpayment_tolerance_bps)
                    .for_update()
                    .first(conn)
                    .await
                    .optional()?;
                let Some(was) = was else {
                    return Ok(false);
                };
                diesel::update(m::table.filter(m::id.eq(id)))
                    .set(m::underpayment_tolerance_bps.eq(i32::from(tolerance.bps())))
                    .execute(conn)
                    .await?;
                let before = serde_json::json!({ "underpayment_tolerance_bps": was });
                record_change(conn, audit, before).await
            })
            .await
            .map_err(map_diesel_error)?;
        merchant_found(found)
    }

    async fn set_screening(
        &self,
        merchant: MerchantId,
        choice: MerchantScreening,
        audit: &AuditEvent,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let id = merchant.uuid();
        let found = conn
            .transaction(async |conn| {
                let was: Option<(Option<bool>, Option<bool>)> = m::table
                    .filter(m::id.eq(id))
                    .select((m::screening_test, m::screening_live))
                    .for_update()
                    .first(conn)
                    .await
                    .optional()?;
                let Some((test, live)) = was else {
                    return Ok(false);
                };
                diesel::update(m::table.filter(m::id.eq(id)))
                    .set((
                        m::screening_test.eq(choice.test),
                        m::screening_live.eq(choice.live),
                    ))
                    .execute(conn)
                    .await?;
                let before = choice_json(MerchantScreening { test, live });
                record_change(conn, audit, before).await
            })
            .await
            .map_err(map_diesel_error)?;
        merchant_found(found)
    }
}

/// Stores a setting change's audit entry with what the setting held (`before`); `true`.
async fn record_change(
    conn: &mut AsyncPgConnection,
    audit: &AuditEvent,
    before: serde_json::Value,
) -> Result<bool, diesel::result::Error> {
    let entry = AuditEvent {
        before: Some(before),
        ..audit.clone()
    };
    record(conn, &entry).await?;
    Ok(true)
}

/// A setting change's answer: whether its merchant's row was there to change.
fn merchant_found(found: bool) -> Result<(), StoreError> {
    if found {
        Ok(())
    } else {
        Err(StoreError::NotFound)
    }
}
