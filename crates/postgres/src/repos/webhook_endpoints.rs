use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use stablepay_domain::ports::{EndpointChanges, StoreError, WebhookEndpointRepository};
use stablepay_domain::{
    AuditEvent, MerchantId, Mode, Page, PageRequest, WebhookEndpoint, WebhookEndpointId,
};

use crate::cipher::endpoint_aad;
use crate::error::map_diesel_error;
use crate::key_check::{first_checked, load_checked, KeyCheck};
use crate::repos::audit::record as record_audit;
use crate::repos::reader::{after_cursor, page_of, scoped};
use crate::rows::{event_names, EndpointRow, NewEndpoint};
use crate::schema::{webhook_endpoints as we, webhook_events as wev};
use crate::PgStore;
use stablepay_request_store::Checked;

#[derive(AsChangeset, Default)]
#[diesel(table_name = we)]
struct EndpointChangeset {
    url: Option<String>,
    enabled_events: Option<Vec<String>>,
    status: Option<String>,
    description: Option<Option<String>>,
    // A status the merchant sets ends any automatic verdict: the health clock restarts.
    failing_since: Option<Option<chrono::DateTime<chrono::Utc>>>,
    disabled_reason: Option<Option<String>>,
}

#[async_trait]
impl WebhookEndpointRepository for PgStore {
    async fn insert(
        &self,
        e: &WebhookEndpoint,
        secret: &str,
        audit: &AuditEvent,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let row = NewEndpoint {
            id: e.id.uuid(),
            merchant_id: e.merchant_id.uuid(),
            livemode: e.mode.is_live(),
            url: e.url.as_str().to_owned(),
            enabled_events: event_names(&e.enabled_events),
            status: e.status.as_str().to_owned(),
            description: e.description.clone(),
            secret_ciphertext: self.cipher.encrypt(secret, &endpoint_aad(e.id.uuid())),
            created_at: e.created_at.as_datetime(),
        };
        conn.transaction(async |conn| {
            diesel::insert_into(we::table)
                .values(&row)
                .execute(conn)
                .await?;
            record_audit(conn, audit).await
        })
        .await
        .map_err(map_diesel_error)
    }

    async fn get(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: WebhookEndpointId,
    ) -> Result<Option<WebhookEndpoint>, StoreError> {
        Ok(self
            .read_endpoint(None, merchant, mode, id)
            .await?
            .into_value())
    }

    async fn list(
        &self,
        merchant: MerchantId,
        mode: Mode,
        page: &PageRequest,
    ) -> Result<Page<WebhookEndpoint>, StoreError> {
        Ok(self
            .list_endpoints(None, merchant, mode, page)
            .await?
            .into_value())
    }

    async fn update(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: WebhookEndpointId,
        changes: &EndpointChanges,
        audit: &AuditEvent,
    ) -> Result<WebhookEndpoint, StoreError> {
        let changeset = EndpointChangeset {
            url: changes.url.as_ref().map(|u| u.as_str().to_owned()),
            enabled_events: changes.enabled_events.as_deref().map(event_names),
            status: changes.status.map(|s| s.as_str().to_owned()),
            description: changes.description.clone(),
            failing_since: changes.status.map(|_| None),
            disabled_reason: changes.status.map(|_| None),
        };
        let nothing_to_change = changeset.url.is_none()
            && changeset.enabled_events.is_none()
            && changeset.status.is_none()
            && changeset.description.is_none();
        if nothing_to_change {
            return self
                .get(merchant, mode, id)
                .await?
                .ok_or(StoreError::NotFound);
        }
        let mut conn = self.conn().await?;
        let row = conn
            .transaction(async |conn| {
                let row = diesel::update(we::table)
                    .filter(we::id.eq(id.uuid()))
                    .filter(we::merchant_id.eq(merchant.uuid()))
                    .filter(we::livemode.eq(mode.is_live()))
                    .filter(we::deleted_at.is_null())
                    .set(&changeset)
                    .returning(EndpointRow::as_returning())
                    .get_result(conn)
                    .await?;
                record_audit(conn, audit).await?;
                Ok::<_, diesel::result::Error>(row)
            })
            .await
            .map_err(map_diesel_error)?;
        row.try_into()
    }

    async fn rotate_secret(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: WebhookEndpointId,
        new_secret: &str,
        grace_secs: i64,
        audit: &AuditEvent,
    ) -> Result<WebhookEndpoint, StoreError> {
        let mut conn = self.conn().await?;
        let grace_until = self.now() + chrono::Duration::seconds(grace_secs);
        let sealed = self.cipher.encrypt(new_secret, &endpoint_aad(id.uuid()));
        let row = conn
            .transaction(async |conn| {
                let row = diesel::update(we::table)
                    .filter(we::id.eq(id.uuid()))
                    .filter(we::merchant_id.eq(merchant.uuid()))
                    .filter(we::livemode.eq(mode.is_live()))
                    .filter(we::deleted_at.is_null())
                    .set((
                        we::previous_secret_ciphertext.eq(we::secret_ciphertext.nullable()),
                        we::previous_secret_expires_at.eq(grace_until),
                        we::secret_ciphertext.eq(sealed),
                    ))
                    .returning(EndpointRow::as_returning())
                    .get_result(conn)
                    .await?;
                record_audit(conn, audit).await?;
                Ok::<_, diesel::result::Error>(row)
            })
            .await
            .map_err(map_diesel_error)?;
        row.try_into()
    }

    async fn delete(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: WebhookEndpointId,
        audit: &AuditEvent,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let now = self.now();
        let deleted = conn
            .transaction(async |conn| {
                let n = diesel::update(we::table)
                    .filter(we::id.eq(id.uuid()))
                    .filter(we::merchant_id.eq(merchant.uuid()))
                    .filter(we::livemode.eq(mode.is_live()))
                    .filter(we::deleted_at.is_null())
                    .set((we::deleted_at.eq(now), we::status.eq("disabled")))
                    .execute(conn)
                    .await?;
                // Not this merchant's and mode's endpoint (or already deleted): touch
                // nothing else.
                if n == 0 {
                    return Ok(0);
                }
                // Deliveries still waiting for this endpoint can never be sent: close them.
                diesel::update(wev::table)
                    .filter(wev::endpoint_id.eq(id.uuid()))
                    .filter(wev::merchant_id.eq(merchant.uuid()))
                    .filter(wev::livemode.eq(mode.is_live()))
                    .filter(wev::status.eq("pending"))
                    .set((
                        wev::status.eq("failed"),
                        wev::last_error.eq("the endpoint was deleted"),
                        wev::next_attempt_at.eq(None::<chrono::DateTime<chrono::Utc>>),
                    ))
                    .execute(conn)
                    .await?;
                diesel::sql_query("DELETE FROM webhook_queue WHERE endpoint_id = $1")
                    .bind::<diesel::sql_types::Uuid, _>(id.uuid())
                    .execute(conn)
                    .await?;
                record_audit(conn, audit).await?;
                Ok::<_, diesel::result::Error>(n)
            })
            .await
            .map_err(map_diesel_error)?;
        if deleted == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(())
    }
}

impl PgStore {
    /// An endpoint of `merchant` in `mode` (not deleted), read under `check`.
    pub(crate) async fn read_endpoint(
        &self,
        check: Option<&KeyCheck>,
        merchant: MerchantId,
        mode: Mode,
        id: WebhookEndpointId,
    ) -> Result<Checked<Option<WebhookEndpoint>>, StoreError> {
        let row: Checked<Option<EndpointRow>> = first_checked!(
            self,
            check,
            we::table
                .filter(we::id.eq(id.uuid()))
                .filter(we::merchant_id.eq(merchant.uuid()))
                .filter(we::livemode.eq(mode.is_live()))
                .filter(we::deleted_at.is_null())
                .select(EndpointRow::as_select()),
            merchant,
            mode
        );
        row.try_map(|r| r.map(WebhookEndpoint::try_from).transpose())
    }

    /// A page of `merchant`'s endpoints in `mode`, newest first, read under `check`.
    pub(crate) async fn list_endpoints(
        &self,
        check: Option<&KeyCheck>,
        merchant: MerchantId,
        mode: Mode,
        page: &PageRequest,
    ) -> Result<Checked<Page<WebhookEndpoint>>, StoreError> {
        let q = scoped!(we, EndpointRow, merchant, mode)
            .filter(we::deleted_at.is_null())
            .order(we::id.desc());
        page_of!(self, check, we, q, page, merchant, mode)
    }
}
