//! Payment links (D34). A link's `completed_count` is counted from its sessions each time
//! it is read (one grouped count for a page), so it can never drift from the sessions.

use std::collections::HashMap;

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use stablepay_domain::ports::{PaymentLinkRepository, StoreError, VisitedLink};
use stablepay_domain::{MerchantId, Mode, Page, PageRequest, PaymentLink, PaymentLinkId};
use uuid::Uuid;

use crate::error::map_diesel_error;
use crate::key_check::{first_checked, load_checked, KeyCheck};
use crate::repos::{fee_tier, merchant_tolerance};
use crate::rows::PaymentLinkRow;
use crate::schema::{checkout_sessions as cs, merchants, payment_links as pl};
use crate::PgStore;
use stablepay_request_store::Checked;

#[async_trait]
impl PaymentLinkRepository for PgStore {
    async fn insert_link(&self, link: &PaymentLink) -> Result<(), StoreError> {
        let row = PaymentLinkRow::from(link);
        let mut conn = self.conn().await?;
        diesel::insert_into(pl::table)
            .values(&row)
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(())
    }

    async fn link(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: PaymentLinkId,
    ) -> Result<Option<PaymentLink>, StoreError> {
        Ok(self
            .read_payment_link(None, merchant, mode, id)
            .await?
            .into_value())
    }

    async fn links(
        &self,
        merchant: MerchantId,
        mode: Mode,
        page: &PageRequest,
    ) -> Result<Page<PaymentLink>, StoreError> {
        Ok(self
            .list_payment_links(None, merchant, mode, page)
            .await?
            .into_value())
    }

    async fn set_link_active(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: PaymentLinkId,
        active: bool,
    ) -> Result<PaymentLink, StoreError> {
        let row: Option<PaymentLinkRow> = {
            let mut conn = self.conn().await?;
            diesel::update(
                pl::table
                    .filter(pl::id.eq(id.uuid()))
                    .filter(pl::merchant_id.eq(merchant.uuid()))
                    .filter(pl::livemode.eq(mode.is_live())),
            )
            .set(pl::active.eq(active))
            .returning(PaymentLinkRow::as_returning())
            .get_result(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?
        };
        let row = row.ok_or(StoreError::NotFound)?;
        self.with_counts(vec![row])
            .await?
            .pop()
            .ok_or(StoreError::NotFound)
    }

    async fn visited_link(&self, id: PaymentLinkId) -> Result<Option<VisitedLink>, StoreError> {
        let found: Option<(PaymentLinkRow, (String, i32, i32))> = {
            let mut conn = self.conn().await?;
            pl::table
                .inner_join(merchants::table.on(merchants::id.eq(pl::merchant_id)))
                .filter(pl::id.eq(id.uuid()))
                .select((
                    PaymentLinkRow::as_select(),
                    (
                        merchants::fee_tier,
                        merchants::fee_bps,
                        merchants::underpayment_tolerance_bps,
                    ),
                ))
                .first(&mut conn)
                .await
                .optional()
                .map_err(map_diesel_error)?
        };
        let Some((row, (tier, bps, tolerance))) = found else {
            return Ok(None);
        };
        let link = self.with_counts(vec![row]).await?.pop();
        link.map(|link| {
            Ok(VisitedLink {
                link,
                fee_tier: fee_tier(&tier, bps)?,
                underpayment_tolerance: merchant_tolerance(tolerance)?,
            })
        })
        .transpose()
    }
}

impl PgStore {
    /// The links of `rows`, each with its completed sessions counted (one query).
    async fn with_counts(&self, rows: Vec<PaymentLinkRow>) -> Result<Vec<PaymentLink>, StoreError> {
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
        let counts: Vec<(Option<Uuid>, i64)> = {
            let mut conn = self.conn().await?;
            cs::table
                .filter(cs::payment_link_id.eq_any(&ids))
                .filter(cs::status.eq("completed"))
                .group_by(cs::payment_link_id)
                .select((cs::payment_link_id, diesel::dsl::count_star()))
                .load(&mut conn)
                .await
                .map_err(map_diesel_error)?
        };
        let counts: HashMap<Uuid, u64> = counts
            .into_iter()
            .filter_map(|(id, n)| Some((id?, u64::try_from(n).unwrap_or(0))))
            .collect();
        rows.into_iter()
            .map(|r| {
                let n = counts.get(&r.id).copied().unwrap_or(0);
                r.into_link(n)
            })
            .collect()
    }

    pub(crate) async fn read_payment_link(
        &self,
        check: Option<&KeyCheck>,
        merchant: MerchantId,
        mode: Mode,
        id: PaymentLinkId,
    ) -> Result<Checked<Option<PaymentLink>>, StoreError> {
        let row: Checked<Option<PaymentLinkRow>> = first_checked!(
            self,
            check,
            pl::table
                .filter(pl::id.eq(id.uuid()))
                .filter(pl::merchant_id.eq(merchant.uuid()))
                .filter(pl::livemode.eq(mode.is_live()))
                .select(PaymentLinkRow::as_select()),
            merchant,
            mode
        );
        let (row, check) = row.take();
        let link = match row {
            Some(row) => self.with_counts(vec![row]).await?.pop(),
            None => None,
        };
        Ok(check.map(|()| link))
    }

    /// A page of the merchant's links in `mode`, newest first.
    pub(crate) async fn list_payment_links(
        &self,
        check: Option<&KeyCheck>,
        merchant: MerchantId,
        mode: Mode,
        page: &PageRequest,
    ) -> Result<Checked<Page<PaymentLink>>, StoreError> {
        let mut q = pl::table
            .filter(pl::merchant_id.eq(merchant.uuid()))
            .filter(pl::livemode.eq(mode.is_live()))
            .select(PaymentLinkRow::as_select())
            .into_boxed();
        if let Some(after) = page.starting_after() {
            q = q.filter(pl::id.lt(after));
        }
        let rows: Checked<Vec<PaymentLinkRow>> = load_checked!(
            self,
            check,
            q.order((pl::merchant_id, pl::livemode, pl::id.desc()))
                .limit(page.fetch_limit()),
            merchant,
            mode
        );
        let (rows, check) = rows.take();
        let page = Page::from_overfetch(rows, page);
        let has_more = page.has_more;
        let links = self.with_counts(page.data).await?;
        Ok(check.map(|()| Page {
            data: links,
            has_more,
        }))
    }
}
