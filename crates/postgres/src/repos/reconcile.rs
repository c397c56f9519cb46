//! What reconcile reads of the books (D32): ledger sums per transaction, refund entries
//! and deposit transfers of a block range, across merchants and modes (an operator's
//! comparison with the chain, never shown to a merchant), and the scheduled runs' results.

use async_trait::async_trait;
use diesel::sql_types::{BigInt, Integer, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel::QueryableByName;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use stablepay_domain::ports::{
    BookedRefund, BookedTx, BooksInRange, DepositCover, ReconcileStore, StoreError,
};
use stablepay_domain::{ChainId, RefundId, Timestamp};
use uuid::Uuid;

use crate::error::map_diesel_error;
use crate::rows::conv::{address, ts, tx_hash, tx_hash_opt};
use crate::PgStore;

/// Transactions with money-in entries in the range, and those deposit payments of the
/// range are shown as; each summed over all of its entries (reversals outside included).
const LEDGER_SUMS: &str = "
WITH covered AS (
    SELECT DISTINCT d.payment_id FROM deposit_transfers d
     WHERE d.chain_id = $1 AND d.block_number BETWEEN $2 AND $3 AND d.payment_id IS NOT NULL
), txs AS (
    SELECT tx_hash FROM balance_transactions
     WHERE chain_id = $1 AND type <> 'refund' AND block_number BETWEEN $2 AND $3
    UNION
    SELECT p.tx_hash FROM payments p JOIN covered c ON c.payment_id = p.id
     WHERE p.tx_hash IS NOT NULL
)
SELECT b.tx_hash, sum(b.amount_micros)::bigint AS amount, sum(b.fee_micros)::bigint AS fee
  FROM balance_transactions b JOIN txs ON txs.tx_hash = b.tx_hash
 WHERE b.chain_id = $1 AND b.type <> 'refund'
 GROUP BY b.tx_hash";

const REFUNDS: &str = "
SELECT refund_id, tx_hash, log_index, token_address, -amount_micros AS amount
  FROM balance_transactions
 WHERE chain_id = $1 AND type = 'refund' AND block_number BETWEEN $2 AND $3
   AND refund_id IS NOT NULL";

/// Deposit transfers of the range, and the other transfers their payments cover.
const DEPOSITS: &str = "
WITH covered AS (
    SELECT DISTINCT d.payment_id FROM deposit_transfers d
     WHERE d.chain_id = $1 AND d.block_number BETWEEN $2 AND $3 AND d.payment_id IS NOT NULL
)
SELECT d.tx_hash, s.deposit_address, d.token_address, p.tx_hash AS booked_as
  FROM deposit_transfers d
  JOIN checkout_sessions s ON s.id = d.checkout_session_id
  LEFT JOIN payments p ON p.id = d.payment_id
 WHERE d.chain_id = $1
   AND (d.block_number BETWEEN $2 AND $3 OR d.payment_id IN (SELECT payment_id FROM covered))
   AND s.deposit_address IS NOT NULL";

#[derive(QueryableByName)]
struct SumRow {
    #[diesel(sql_type = Text)]
    tx_hash: String,
    #[diesel(sql_type = BigInt)]
    amount: i64,
    #[diesel(sql_type = BigInt)]
    fee: i64,
}

#[derive(QueryableByName)]
struct RefundRow {
    #[diesel(sql_type = SqlUuid)]
    refund_id: Uuid,
    #[diesel(sql_type = Text)]
    tx_hash: String,
    #[diesel(sql_type = BigInt)]
    log_index: i64,
    #[diesel(sql_type = Text)]
    token_address: String,
    #[diesel(sql_type = BigInt)]
    amount: i64,
}

#[derive(QueryableByName)]
struct DepositRow {
    #[diesel(sql_type = Text)]
    tx_hash: String,
    #[diesel(sql_type = Text)]
    deposit_address: String,
    #[diesel(sql_type = Text)]
    token_address: String,
    #[diesel(sql_type = Nullable<Text>)]
    booked_as: Option<String>,
}

#[derive(QueryableByName)]
struct RunRow {
    #[diesel(sql_type = BigInt)]
    from_block: i64,
    #[diesel(sql_type = BigInt)]
    to_block: i64,
    #[diesel(sql_type = Integer)]
    differences: i32,
    #[diesel(sql_type = Timestamptz)]
    ran_at: chrono::DateTime<chrono::Utc>,
}

/// `sql` with its three parameters bound: the chain and the first and last block.
fn in_range(
    sql: &'static str,
    chain: ChainId,
    from: u64,
    to: u64,
) -> diesel::query_builder::BoxedSqlQuery<'static, diesel::pg::Pg, diesel::query_builder::SqlQuery>
{
    diesel::sql_query(sql)
        .into_boxed()
        .bind::<Integer, _>(chain.id() as i32)
        .bind::<BigInt, _>(block(from))
        .bind::<BigInt, _>(block(to))
}

fn block(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn unsigned(n: i64, what: &str) -> Result<u64, StoreError> {
    u64::try_from(n).map_err(|_| crate::error::corrupt(what, n))
}

#[async_trait]
impl ReconcileStore for PgStore {
    async fn books_in_range(
        &self,
        chain: ChainId,
        from: u64,
        to: u64,
    ) -> Result<BooksInRange, StoreError> {
        let mut conn = self.conn().await?;
        let sums: Vec<SumRow> = in_range(LEDGER_SUMS, chain, from, to)
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        let refunds: Vec<RefundRow> = in_range(REFUNDS, chain, from, to)
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        let deposits: Vec<DepositRow> = in_range(DEPOSITS, chain, from, to)
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(BooksInRange {
            txs: sums
                .into_iter()
                .map(|r| {
                    Ok(BookedTx {
                        tx_hash: tx_hash(&r.tx_hash)?,
                        amount_micros: r.amount,
                        fee_micros: r.fee,
                    })
                })
                .collect::<Result<_, StoreError>>()?,
            refunds: refunds
                .into_iter()
                .map(|r| {
                    Ok(BookedRefund {
                        refund: RefundId::from_uuid(r.refund_id),
                        tx_hash: tx_hash(&r.tx_hash)?,
                        log_index: unsigned(r.log_index, "refund log index")?,
                        token: address(&r.token_address)?,
                        amount_micros: unsigned(r.amount, "refund amount")?,
                    })
                })
                .collect::<Result<_, StoreError>>()?,
            deposits: deposits
                .into_iter()
                .map(|r| {
                    Ok(DepositCover {
                        tx_hash: tx_hash(&r.tx_hash)?,
                        to: address(&r.deposit_address)?,
                        token: address(&r.token_address)?,
                        booked_as: tx_hash_opt(r.booked_as.as_deref())?,
                    })
                })
                .collect::<Result<_, StoreError>>()?,
        })
    }

    async fn record_reconcile_run(
        &self,
        chain: ChainId,
        from: u64,
        to: u64,
        differences: u32,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        diesel::sql_query(
            "INSERT INTO reconcile_runs (chain_id, from_block, to_block, differences, ran_at) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind::<Integer, _>(chain.id() as i32)
        .bind::<BigInt, _>(block(from))
        .bind::<BigInt, _>(block(to))
        .bind::<Integer, _>(i32::try_from(differences).unwrap_or(i32::MAX))
        .bind::<Timestamptz, _>(self.now())
        .execute(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(())
    }

    async fn latest_reconcile_run(
        &self,
        chain: ChainId,
    ) -> Result<Option<(u64, u64, u32, Timestamp)>, StoreError> {
        let mut conn = self.conn().await?;
        latest_run(&mut conn, chain).await
    }
}

/// The latest scheduled reconcile on `chain`, for the doctor (one connection of its own).
pub async fn latest_reconcile_at(
    database_url: &str,
    chain: ChainId,
) -> Result<Option<(u64, u64, u32, Timestamp)>, String> {
    let mut conn = AsyncPgConnection::establish(database_url)
        .await
        .map_err(|_| "the database could not be reached".to_string())?;
    latest_run(&mut conn, chain)
        .await
        .map_err(|e| format!("reconcile runs unreadable: {e}"))
}

async fn latest_run(
    conn: &mut AsyncPgConnection,
    chain: ChainId,
) -> Result<Option<(u64, u64, u32, Timestamp)>, StoreError> {
    let rows: Vec<RunRow> = diesel::sql_query(
        "SELECT from_block, to_block, differences, ran_at FROM reconcile_runs \
             WHERE chain_id = $1 ORDER BY id DESC LIMIT 1",
    )
    .bind::<Integer, _>(chain.id() as i32)
    .load(conn)
    .await
    .map_err(map_diesel_error)?;
    rows.into_iter()
        .next()
        .map(|r| {
            Ok((
                unsigned(r.from_block, "reconcile from_block")?,
                unsigned(r.to_block, "reconcile to_block")?,
                u32::try_from(r.differences).unwrap_or(0),
                ts(r.ran_at),
            ))
        })
        .transpose()
}
