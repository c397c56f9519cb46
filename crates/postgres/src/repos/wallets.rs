use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use stablepay_domain::ports::{
    ChallengeUse, StoreError, WalletInsert, WalletRepository, WalletRevocation,
};
use stablepay_domain::{
    Address, AuditEvent, MerchantId, Mode, Page, PageRequest, Timestamp, Wallet, WalletChallenge,
    WalletId, WalletStatus,
};

use crate::error::map_diesel_error;
use crate::key_check::{first_checked, load_checked, KeyCheck};
use crate::repos::audit::record as record_audit;
use crate::rows::{ChallengeRow, WalletRow};
use crate::schema::{wallet_challenges as wc, wallets as w};
use crate::PgStore;
use stablepay_request_store::Checked;

#[async_trait]
impl WalletRepository for PgStore {
    async fn find_by_address(
        &self,
        merchant: MerchantId,
        address: Address,
    ) -> Result<Option<Wallet>, StoreError> {
        // The unit's own connection in an atomic unit, a pooled one otherwise (a GET of a
        // session reads the wallet in the session's statement instead).
        let conn = self.shared_conn().await?;
        let row = w::table
            .filter(w::merchant_id.eq(merchant.uuid()))
            .filter(w::address.eq(address.to_lower_hex()))
            .select(WalletRow::as_select())
            .first(&mut &*conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        row.map(Wallet::try_from).transpose()
    }

    async fn insert_with_challenge(
        &self,
        wallet: &Wallet,
        challenge: &WalletChallenge,
        audit: &AuditEvent,
    ) -> Result<WalletInsert, StoreError> {
        self.note_wallet_write();
        let mut conn = self.conn().await?;
        let (wallet_row, challenge_row) = (WalletRow::from(wallet), ChallengeRow::from(challenge));
        conn.transaction(async |conn| {
            let inserted = diesel::insert_into(w::table)
                .values(&wallet_row)
                .on_conflict((w::merchant_id, w::address))
                .do_nothing()
                .execute(conn)
                .await?;
            if inserted == 0 {
                return Ok(WalletInsert::AddressTaken);
            }
            diesel::insert_into(wc::table)
                .values(&challenge_row)
                .execute(conn)
                .await?;
            record_audit(conn, audit).await?;
            Ok::<_, diesel::result::Error>(WalletInsert::Inserted)
        })
        .await
        .map_err(map_diesel_error)
    }

    async fn restart_verification(
        &self,
        wallet: &Wallet,
        challenge: &WalletChallenge,
        audit: &AuditEvent,
    ) -> Result<Wallet, StoreError> {
        self.note_wallet_write();
        let mut conn = self.conn().await?;
        let challenge_row = ChallengeRow::from(challenge);
        let (id, chain_id) = (wallet.id.uuid(), wallet.chain.id() as i32);
        let row = conn
            .transaction(async |conn| {
                // Never a verified wallet: one verified since the caller read it (by a live
                // key, say) stays verified, and no challenge is issued for it.
                let restarted = diesel::update(
                    w::table
                        .filter(w::id.eq(id))
                        .filter(w::status.ne("verified")),
                )
                .set((
                    w::status.eq("pending"),
                    w::chain_id.eq(chain_id),
                    w::verified_at.eq(None::<chrono::DateTime<chrono::Utc>>),
                    w::verified_mode.eq(None::<String>),
                ))
                .returning(WalletRow::as_returning())
                .get_result(conn)
                .await
                .optional()?;
                let Some(row) = restarted else {
                    return w::table
                        .filter(w::id.eq(id))
                        .select(WalletRow::as_select())
                        .first(conn)
                        .await;
                };
                diesel::insert_into(wc::table)
                    .values(&challenge_row)
                    .execute(conn)
                    .await?;
                record_audit(conn, audit).await?;
                Ok::<_, diesel::result::Error>(row)
            })
            .await
            .map_err(map_diesel_error)?;
        row.try_into()
    }

    async fn add_challenge(&self, challenge: &WalletChallenge) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        diesel::insert_into(wc::table)
            .values(&ChallengeRow::from(challenge))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(())
    }

    async fn get(&self, merchant: MerchantId, id: WalletId) -> Result<Option<Wallet>, StoreError> {
        Ok(self.read_wallet(None, merchant, id).await?.into_value())
    }

    async fn latest_challenge(
        &self,
        wallet: WalletId,
    ) -> Result<Option<WalletChallenge>, StoreError> {
        let mut conn = self.conn().await?;
        let row = wc::table
            .filter(wc::wallet_id.eq(wallet.uuid()))
            .order(wc::id.desc())
            .select(ChallengeRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        Ok(row.map(WalletChallenge::from))
    }

    async fn mark_verified(
        &self,
        wallet: WalletId,
        nonce: &str,
        now: Timestamp,
        mode: Mode,
        audit: &AuditEvent,
    ) -> Result<ChallengeUse, StoreError> {
        self.note_wallet_write();
        let mut conn = self.conn().await?;
        let (id, nonce, at) = (wallet.uuid(), nonce.to_owned(), now.as_datetime());
        let row = conn
            .transaction(async |conn| {
                // A wallet a live key revoked comes back only by a live key (D25). Read
                // under the row's lock: a live revocation racing this call is seen.
                let revoked_mode: Option<String> = w::table
                    .filter(w::id.eq(id))
                    .select(w::revoked_mode)
                    .for_update()
                    .first(conn)
                    .await
                    .optional()?
                    .flatten();
                if !mode.is_live() && revoked_mode.as_deref() == Some(Mode::Live.as_str()) {
                    return Ok(Err(()));
                }
                // Using the challenge is the single-use gate: only one caller flips used_at.
                let used = diesel::update(wc::table)
                    .filter(wc::wallet_id.eq(id))
                    .filter(wc::nonce.eq(&nonce))
                    .filter(wc::used_at.is_null())
                    .set(wc::used_at.eq(at))
                    .execute(conn)
                    .await?;
                if used == 0 {
                    return Ok(Ok(None));
                }
                let row = diesel::update(w::table.filter(w::id.eq(id)))
                    .set((
                        w::status.eq("verified"),
                        w::verified_at.eq(at),
                        w::verified_mode.eq(mode.as_str()),
                        w::revoked_at.eq(None::<chrono::DateTime<chrono::Utc>>),
                        w::revoked_mode.eq(None::<String>),
                    ))
                    .returning(WalletRow::as_returning())
                    .get_result(conn)
                    .await?;
                record_audit(conn, audit).await?;
                Ok::<_, diesel::result::Error>(Ok(Some(row)))
            })
            .await
            .map_err(map_diesel_error)?;
        match row {
            Ok(Some(row)) => Ok(ChallengeUse::Consumed(row.try_into()?)),
            Ok(None) => Ok(ChallengeUse::NotUsable),
            Err(()) => Ok(ChallengeUse::NeedsLiveKey),
        }
    }

    async fn revoke(
        &self,
        merchant: MerchantId,
        id: WalletId,
        now: Timestamp,
        by: Mode,
        audit: &AuditEvent,
    ) -> Result<WalletRevocation, StoreError> {
        self.note_wallet_write();
        let mut conn = self.conn().await?;
        let mut update = diesel::update(w::table)
            .filter(w::id.eq(id.uuid()))
            .filter(w::merchant_id.eq(merchant.uuid()))
            .into_boxed();
        if !by.is_live() {
            // In the statement itself: a live verification that lands between the
            // service's read and this update still wins.
            // Nor does it overwrite a live key's revocation with its own (its own could
            // then be undone by a test key).
            update = update
                .filter(w::verified_mode.is_distinct_from("live"))
                .filter(w::revoked_mode.is_distinct_from("live"));
        }
        let row = conn
            .transaction(async |conn| {
                let row = update
                    .set((
                        w::status.eq("revoked"),
                        w::revoked_at.eq(now.as_datetime()),
                        w::revoked_mode.eq(by.as_str()),
                    ))
                    .returning(WalletRow::as_returning())
                    .get_result(conn)
                    .await
                    .optional()?;
                if row.is_some() {
                    record_audit(conn, audit).await?;
                }
                Ok::<_, diesel::result::Error>(row)
            })
            .await
            .map_err(map_diesel_error)?;
        match row {
            Some(row) => Ok(WalletRevocation::Revoked(row.try_into()?)),
            None if by.is_live() => Err(StoreError::NotFound),
            None => match self.get(merchant, id).await? {
                // Revoked by a live key meanwhile: revoked, as asked.
                Some(w) if w.status == WalletStatus::Revoked => Ok(WalletRevocation::Revoked(w)),
                Some(_) => Ok(WalletRevocation::NeedsLiveKey),
                None => Err(StoreError::NotFound),
            },
        }
    }

    async fn list(
        &self,
        merchant: MerchantId,
        page: &PageRequest,
    ) -> Result<Page<Wallet>, StoreError> {
        Ok(self.list_wallets(None, merchant, page).await?.into_value())
    }

    async fn verified(&self, merchant: MerchantId) -> Result<Vec<Wallet>, StoreError> {
        let version = self.wallets_seen().and_then(|s| s.version_for(merchant));
        if let Some(wallets) = version.and_then(|v| self.verified_wallets.get(merchant, v)) {
            return Ok(wallets);
        }
        let conn = self.plain_read_conn().await?;
        let rows: Vec<WalletRow> = w::table
            .filter(w::merchant_id.eq(merchant.uuid()))
            .filter(w::status.eq("verified"))
            .order(w::id.asc())
            .select(WalletRow::as_select())
            .load(&mut &*conn)
            .await
            .map_err(map_diesel_error)?;
        let wallets = rows
            .into_iter()
            .map(Wallet::try_from)
            .collect::<Result<Vec<_>, _>>()?;
        // Unless the unit wrote a wallet meanwhile: its read may hold that uncommitted write.
        let still = self.wallets_seen().and_then(|s| s.version_for(merchant));
        if let Some(v) = version.filter(|v| still == Some(*v)) {
            self.verified_wallets.put(merchant, v, &wallets);
        }
        Ok(wallets)
    }
}

impl PgStore {
    /// A wallet of `merchant`, read under `check` (a wallet is the merchant's in both modes:
    /// the check covers the merchant alone).
    pub(crate) async fn read_wallet(
        &self,
        check: Option<&KeyCheck>,
        merchant: MerchantId,
        id: WalletId,
    ) -> Result<Checked<Option<Wallet>>, StoreError> {
        let row: Checked<Option<WalletRow>> = first_checked!(
            self,
            check,
            w::table
                .filter(w::id.eq(id.uuid()))
                .filter(w::merchant_id.eq(merchant.uuid()))
                .select(WalletRow::as_select()),
            merchant
        );
        row.try_map(|r| r.map(Wallet::try_from).transpose())
    }

    /// A page of `merchant`'s wallets, newest first, read under `check`.
    pub(crate) async fn list_wallets(
        &self,
        check: Option<&KeyCheck>,
        merchant: MerchantId,
        page: &PageRequest,
    ) -> Result<Checked<Page<Wallet>>, StoreError> {
        let mut q = w::table
            .filter(w::merchant_id.eq(merchant.uuid()))
            .select(WalletRow::as_select())
            .into_boxed();
        if let Some(after) = page.starting_after() {
            q = q.filter(w::id.lt(after));
        }
        let rows: Checked<Vec<WalletRow>> = load_checked!(
            self,
            check,
            q.order(w::id.desc()).limit(page.fetch_limit()),
            merchant
        );
        rows.try_map(|rows| Page::from_overfetch(rows, page).try_map(Wallet::try_from))
    }
}
