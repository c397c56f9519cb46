//! Refund requests (D32): created with their audit entry, confirmed with their event, and
//! marked refunded by the refund's own write (`repos/refunds.rs`).

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use stablepay_domain::ports::{EventDraft, RefundRequestStore, StoreError};
use stablepay_domain::{
    AuditEvent, MerchantId, Mode, Page, PageRequest, RefundRequest, RefundRequestId,
};

use crate::error::map_diesel_error;
use crate::key_check::{first_checked, load_checked, KeyCheck};
use crate::repos::audit::record as record_audit;
use crate::repos::outbox::{write_event, OutboxError};
use crate::rows::RefundRequestRow;
use crate::schema::refund_requests as rr;
use crate::PgStore;
use stablepay_request_store::Checked;

#[async_trait]
impl RefundRequestStore for PgStore {
    async fn insert_request(
        &self,
        request: &RefundRequest,
        audit: &AuditEvent,
    ) -> Result<(), StoreError> {
        let row = RefundRequestRow::from(request);
        let mut conn = self.conn().await?;
        conn.transaction(async |conn| {
            diesel::insert_into(rr::table)
                .values(&row)
                .execute(conn)
                .await?;
            record_audit(conn, audit).await
        })
        .await
        .map_err(map_diesel_error)
    }

    async fn request(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: RefundRequestId,
    ) -> Result<Option<RefundRequest>, StoreError> {
        Ok(self
            .read_refund_request(None, merchant, mode, id)
            .await?
            .into_value())
    }

    async fn request_by_id(
        &self,
        id: RefundRequestId,
    ) -> Result<Option<RefundRequest>, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<RefundRequestRow> = rr::table
            .filter(rr::id.eq(id.uuid()))
            .select(RefundRequestRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        row.map(TryInto::try_into).transpose()
    }

    async fn confirm_address(
        &self,
        confirmed: &RefundRequest,
        event: &EventDraft,
    ) -> Result<bool, StoreError> {
        let row = RefundRequestRow::from(confirmed);
        let Some(at) = row.address_confirmed_at else {
            return Err(StoreError::Internal(
                "a confirmation without its time".into(),
            ));
        };
        let mut conn = self.conn().await?;
        conn.transaction(async |conn| {
            let n = diesel::update(
                rr::table
                    .filter(rr::id.eq(row.id))
                    .filter(rr::status.eq("awaiting_address"))
                    .filter(rr::expires_at.gt(at)),
            )
            .set((
                rr::status.eq(&row.status),
                rr::destination_address.eq(&row.destination_address),
                rr::confirmation.eq(&row.confirmation),
                rr::confirmed_from.eq(&row.confirmed_from),
                rr::address_confirmed_at.eq(at),
            ))
            .execute(conn)
            .await?;
            if n == 0 {
                return Ok::<_, OutboxError>(false);
            }
            write_event(conn, event).await?;
            Ok(true)
        })
        .await
        .map_err(StoreError::from)
    }
}

impl PgStore {
    pub(crate) async fn read_refund_request(
        &self,
        check: Option<&KeyCheck>,
        merchant: MerchantId,
        mode: Mode,
        id: RefundRequestId,
    ) -> Result<Checked<Option<RefundRequest>>, StoreError> {
        let row: Checked<Option<RefundRequestRow>> = first_checked!(
            self,
            check,
            rr::table
                .filter(rr::id.eq(id.uuid()))
                .filter(rr::merchant_id.eq(merchant.uuid()))
                .filter(rr::livemode.eq(mode.is_live()))
                .select(RefundRequestRow::as_select()),
            merchant,
            mode
        );
        row.try_map(|r| r.map(TryInto::try_into).transpose())
    }

    /// A page of the merchant's requests in `mode`, newest first; `payment` narrows it to
    /// one payment's.
    pub(crate) async fn list_refund_requests(
        &self,
        check: Option<&KeyCheck>,
        merchant: MerchantId,
        mode: Mode,
        payment: Option<stablepay_domain::PaymentId>,
        page: &PageRequest,
    ) -> Result<Checked<Page<RefundRequest>>, StoreError> {
        let mut q = rr::table
            .filter(rr::merchant_id.eq(merchant.uuid()))
            .filter(rr::livemode.eq(mode.is_live()))
            .select(RefundRequestRow::as_select())
            .into_boxed();
        if let Some(p) = payment {
            q = q.filter(rr::payment_id.eq(p.uuid()));
        }
        if let Some(after) = page.starting_after() {
            q = q.filter(rr::id.lt(after));
        }
        let rows: Checked<Vec<RefundRequestRow>> = load_checked!(
            self,
            check,
            q.order((rr::merchant_id, rr::livemode, rr::id.desc()))
                .limit(page.fetch_limit()),
            merchant,
            mode
        );
        rows.try_map(|rows| Page::from_overfetch(rows, page).try_map(TryInto::try_into))
    }
}
