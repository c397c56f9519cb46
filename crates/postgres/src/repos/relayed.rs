//! The relayer's transactions (D23, D26): one per checkout session, nonces from the
//! keeper's sequence (`take_nonce`), stored with its first attempt before the first
//! broadcast; the worker's sender follows it from there (replacements, fills).

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use stablepay_domain::ports::{
    AttemptFees, GasReceipt, RelayFor, RelayRecords, RelayedAuthorization, SentRelays, SentWork,
    SignAtNonce, SignedTx, StoreError, StoredRelay, WorkKind,
};
use stablepay_domain::rules::relay_budget::RelayGas;
use stablepay_domain::{Address, ChainId, CheckoutSessionId, Timestamp, TxHash};
use uuid::Uuid;

use crate::error::map_diesel_error;
use crate::repos::keeper::{sign_at, take_nonce, used_nonce};
use crate::repos::sender_attempts::{insert_attempt, AtNonce};
use crate::rows::{to_i64, tx_hash};
use crate::schema::relayed_transactions as rt;
use crate::PgStore;

/// Statuses of a transaction that may still pay, or paid, its session; `reverted` and
/// `dropped` ones leave the session payable.
const LIVE: [&str; 2] = ["sent", "mined"];

/// How long a payer (or a contract with its code) whose relay reverted is refused (D30).
pub const REVERT_COOLDOWN_SECS: i64 = 3600;

/// Why [`PgStore::insert_relayed_payment`] signed nothing, as read inside its transaction.
enum Refused {
    Existing(String),
    Overcommitted(u128),
    CoolingDown(chrono::DateTime<chrono::Utc>),
}

#[async_trait]
impl RelayRecords for PgStore {
    async fn relayed_for_session(
        &self,
        session: CheckoutSessionId,
    ) -> Result<Option<TxHash>, StoreError> {
        let mut conn = self.conn().await?;
        let hash: Option<String> = rt::table
            .filter(rt::checkout_session_id.eq(session.uuid()))
            .filter(rt::status.eq_any(LIVE))
            .select(rt::tx_hash)
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        hash.map(|h| tx_hash(&h)).transpose()
    }

    /// The live relay of a session: its transaction, payer and authorization nonce.
    async fn relayed_authorization(
        &self,
        session: CheckoutSessionId,
    ) -> Result<Option<RelayedAuthorization>, StoreError> {
        let mut conn = self.conn().await?;
        #[allow(clippy::type_complexity)]
        let row: Option<(String, Option<String>, Option<Vec<u8>>, Option<Vec<u8>>)> = rt::table
            .filter(rt::checkout_session_id.eq(session.uuid()))
            .filter(rt::status.eq_any(LIVE))
            .select((
                rt::tx_hash,
                rt::payer_address,
                rt::authorization_nonce,
                rt::authorization_terms,
            ))
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        let Some((tx, payer, nonce, terms)) = row else {
            return Ok(None);
        };
        let payer = payer.as_deref().and_then(|p| Address::parse(p).ok());
        let word = |b: Option<Vec<u8>>| b.and_then(|b| <[u8; 32]>::try_from(b).ok());
        Ok(Some(RelayedAuthorization {
            tx: tx_hash(&tx)?,
            payer,
            nonce: word(nonce),
            terms: word(terms),
        }))
    }

    /// The sender and chain nonce of a session's live relay: where its attempts are.
    async fn relay_position(
        &self,
        session: CheckoutSessionId,
    ) -> Result<Option<(Address, u64)>, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<(String, i64)> = rt::table
            .filter(rt::checkout_session_id.eq(session.uuid()))
            .filter(rt::status.eq_any(LIVE))
            .select((rt::sender_address, rt::nonce))
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        row.map(|(sender, nonce)| {
            Address::parse(&sender)
                .map(|a| (a, u64::try_from(nonce).unwrap_or(0)))
                .map_err(|_| {
                    crate::error::corrupt("relayed_transactions.sender_address", "not an address")
                })
        })
        .transpose()
    }

    async fn relay_gas_since(
        &self,
        chain: ChainId,
        since: Timestamp,
    ) -> Result<RelayGas, StoreError> {
        let mut conn = self.conn().await?;
        crate::repos::relay_gas::relay_gas(&mut conn, chain, since)
            .await
            .map_err(map_diesel_error)
    }
}

impl PgStore {
    /// In one database transaction: takes the sender's next nonce (never below
    /// `chain_nonce`), unless the session already has a live relayed transaction, the
    /// payer's unmined relays would promise more than `relay.payer_balance`, or the payer
    /// (or its code) is cooling down after a revert (D30); signs with it and stores the
    /// bytes.
    /// Concurrent calls for one sender queue on its nonce row, so a second call for the
    /// same session (another api process included) finds the first's transaction and signs
    /// nothing.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn insert_relayed_payment(
        &self,
        chain: ChainId,
        sender: Address,
        chain_nonce: u64,
        relay: RelayFor,
        now: Timestamp,
        fees: AttemptFees,
        sign: &dyn SignAtNonce,
    ) -> Result<StoredRelay, StoreError> {
        let mut conn = self.conn().await?;
        let chain_id = chain.id() as i32;
        let sender = sender.to_lower_hex();
        let session = relay.session;
        let payer = relay.payer.to_lower_hex();
        let token = relay.token.to_lower_hex();
        let value = diesel::dsl::sql::<diesel::sql_types::Numeric>("")
            .bind::<diesel::sql_types::Text, _>(relay.value.to_string())
            .sql("::numeric");
        let stored = conn
            .transaction(async |conn| {
                let nonce = take_nonce(conn, chain_id, &sender, chain_nonce).await?;
                let existing: Option<String> = rt::table
                    .filter(rt::checkout_session_id.eq(session.uuid()))
                    .filter(rt::status.eq_any(LIVE))
                    .select(rt::tx_hash)
                    .first(conn)
                    .await
                    .optional()?;
                if let Some(hash) = existing {
                    return Ok(Err(Refused::Existing(hash)));
                }
                // One payer's relays are judged one at a time, whichever relayer key sends
                // them (two keys do not share a nonce row).
                diesel::sql_query("SELECT pg_advisory_xact_lock(hashtext($1))")
                    .bind::<diesel::sql_types::Text, _>(format!("relay-payer:{chain_id}:{payer}"))
                    .execute(conn)
                    .await?;
                // A revert cost the relayer its gas: this payer, and any wallet with the
                // same code, waits out the cool-down. Other payers of the session do not.
                let since = now.plus_seconds(-REVERT_COOLDOWN_SECS).as_datetime();
                let reverted: Option<chrono::DateTime<chrono::Utc>> = rt::table
                    .filter(rt::chain_id.eq(chain_id))
                    .filter(rt::status.eq("reverted"))
                    .filter(rt::mined_at.gt(since))
                    .filter(
                        rt::payer_address
                            .eq(&payer)
                            .or(rt::payer_code_hash.eq(relay.code_hash.map(|h| h.to_vec()))),
                    )
                    .select(diesel::dsl::max(rt::mined_at))
                    .first(conn)
                    .await?;
                if let Some(at) = reverted {
                    return Ok(Err(Refused::CoolingDown(at)));
                }
                // What the payer's unmined relays of this token already promise.
                let promised: Option<String> = rt::table
                    .filter(rt::chain_id.eq(chain_id))
                    .filter(rt::payer_address.eq(&payer))
                    .filter(rt::token_address.eq(&token))
                    .filter(rt::status.eq("sent"))
                    .select(diesel::dsl::sql::<
                        diesel::sql_types::Nullable<diesel::sql_types::Text>,
                    >("sum(relay_value)::text"))
                    .first(conn)
                    .await?;
                let promised = promised.and_then(|p| p.parse::<u128>().ok()).unwrap_or(0);
                if promised.saturating_add(relay.value) > relay.payer_balance {
                    return Ok(Err(Refused::Overcommitted(promised)));
                }
                let (hash, raw) = sign_at(sign, nonce)?;
                diesel::insert_into(rt::table)
                    .values((
                        rt::chain_id.eq(chain_id),
                        rt::sender_address.eq(&sender),
                        rt::nonce.eq(to_i64(nonce)),
                        rt::checkout_session_id.eq(session.uuid()),
                        rt::tx_hash.eq(hash.to_string()),
                        rt::raw_tx.eq(&raw),
                        rt::created_at.eq(now.as_datetime()),
                        rt::last_broadcast_at.eq(now.as_datetime()),
                        rt::payer_address.eq(&payer),
                        rt::valid_before.eq(to_i64(relay.valid_before)),
                        rt::authorization_nonce.eq(relay.nonce.to_vec()),
                        rt::authorization_terms.eq(relay.terms.map(|t| t.to_vec())),
                        rt::token_address.eq(&token),
                        rt::relay_value.eq(value.nullable()),
                        rt::payer_code_hash.eq(relay.code_hash.map(|h| h.to_vec())),
                        rt::fill_to.eq(relay.fill.as_ref().map(|(to, _)| to.to_lower_hex())),
                        rt::fill_data.eq(relay.fill.as_ref().map(|(_, data)| data.clone())),
                    ))
                    .execute(conn)
                    .await?;
                used_nonce(conn, chain_id, &sender, nonce).await?;
                let at = AtNonce {
                    chain_id,
                    sender: &sender,
                    nonce,
                };
                insert_attempt(conn, at, (&hash, &raw), fees, false, now).await?;
                Ok::<_, diesel::result::Error>(Ok((hash, raw)))
            })
            .await;
        let stored = match stored {
            // Another sender (a second relayer key) stored this session's relay first: the
            // live-relay index refused ours, so theirs is the one.
            Err(diesel::result::Error::DatabaseError(
                diesel::result::DatabaseErrorKind::UniqueViolation,
                info,
            )) if info.constraint_name() == Some("relayed_transactions_session") => {
                return match self.relayed_for_session(session).await? {
                    Some(tx) => Ok(StoredRelay::Existing(tx)),
                    None => Err(StoreError::Contended),
                };
            }
            other => other.map_err(map_diesel_error)?,
        };
        match stored {
            Ok((hash, raw)) => Ok(StoredRelay::New(SignedTx { hash, raw })),
            Err(Refused::Existing(existing)) => Ok(StoredRelay::Existing(tx_hash(&existing)?)),
            Err(Refused::Overcommitted(promised)) => {
                Ok(StoredRelay::PayerOvercommitted { promised })
            }
            Err(Refused::CoolingDown(at)) => Ok(StoredRelay::PayerCoolingDown {
                until: Timestamp::new(at).plus_seconds(REVERT_COOLDOWN_SECS),
            }),
        }
    }

    /// The fill call stored with the relay at this nonce (a router relay's `cancel` of its
    /// ref), if it has one.
    pub async fn relay_fill_call(
        &self,
        chain: ChainId,
        sender: Address,
        nonce: u64,
    ) -> Result<Option<(Address, Vec<u8>)>, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<(Option<String>, Option<Vec<u8>>)> = rt::table
            .filter(rt::chain_id.eq(chain.id() as i32))
            .filter(rt::sender_address.eq(sender.to_lower_hex()))
            .filter(rt::nonce.eq(to_i64(nonce)))
            .select((rt::fill_to, rt::fill_data))
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        match row {
            Some((Some(to), Some(data))) => Ok(Some((crate::rows::address(&to)?, data))),
            _ => Ok(None),
        }
    }
}

#[async_trait]
impl SentRelays for PgStore {
    /// Relayed transactions on `chain` not yet settled, oldest nonce first, each with every
    /// attempt at its nonce.
    async fn sent_relays(&self, chain: ChainId) -> Result<Vec<SentWork>, StoreError> {
        #[allow(clippy::type_complexity)]
        let rows: Vec<(String, i64, String, chrono::DateTime<chrono::Utc>, Uuid)> = {
            let mut conn = self.conn().await?;
            rt::table
                .filter(rt::chain_id.eq(chain.id() as i32))
                .filter(rt::status.eq("sent"))
                .order(rt::nonce.asc())
                .select((
                    rt::sender_address,
                    rt::nonce,
                    rt::tx_hash,
                    rt::last_broadcast_at,
                    rt::checkout_session_id,
                ))
                .load(&mut conn)
                .await
                .map_err(map_diesel_error)?
        };
        let work = rows
            .into_iter()
            .map(|(sender, nonce, hash, at, session)| {
                Ok((
                    crate::rows::address(&sender)?,
                    u64::try_from(nonce).unwrap_or(0),
                    tx_hash(&hash)?,
                    Timestamp::new(at),
                    Some(CheckoutSessionId::from_uuid(session)),
                ))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        self.with_attempts(WorkKind::Relay, chain, work).await
    }

    /// Marks a relayed transaction dropped: its nonce went to another transaction (a fill
    /// of its own, or one the relay never sent), so it can never be mined; the session is
    /// payable again. Only while `relay.tx_hash` is still its newest attempt (a
    /// replacement stored meanwhile is followed first).
    async fn relay_dropped(&self, relay: &SentWork) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        diesel::update(
            rt::table
                .filter(rt::chain_id.eq(relay.chain.id() as i32))
                .filter(rt::sender_address.eq(relay.sender.to_lower_hex()))
                .filter(rt::nonce.eq(to_i64(relay.nonce)))
                .filter(rt::tx_hash.eq(relay.tx_hash.to_string()))
                .filter(rt::status.eq("sent")),
        )
        .set(rt::status.eq("dropped"))
        .execute(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(())
    }

    /// Records the receipt of `mined`, an attempt at `relay`'s nonce (it becomes the relay's
    /// transaction): mined or reverted, the gas it used and what it cost in wei (gasUsed ×
    /// effective gas price, as decimal text).
    async fn relay_mined(
        &self,
        relay: &SentWork,
        mined: TxHash,
        gas: GasReceipt,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let (succeeded, gas_used) = (gas.succeeded, gas.gas_used);
        let cost = diesel::dsl::sql::<diesel::sql_types::Numeric>("")
            .bind::<diesel::sql_types::Text, _>(gas.cost_wei().to_string())
            .sql("::numeric");
        diesel::update(
            rt::table
                .filter(rt::chain_id.eq(relay.chain.id() as i32))
                .filter(rt::sender_address.eq(relay.sender.to_lower_hex()))
                .filter(rt::nonce.eq(to_i64(relay.nonce)))
                .filter(rt::status.eq("sent")),
        )
        .set((
            rt::tx_hash.eq(mined.to_string()),
            rt::status.eq(if succeeded { "mined" } else { "reverted" }),
            rt::gas_used.eq(Some(to_i64(gas_used))),
            rt::gas_cost_wei.eq(cost.nullable()),
            rt::mined_at.eq(Some(now.as_datetime())),
        ))
        .execute(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(())
    }
}
