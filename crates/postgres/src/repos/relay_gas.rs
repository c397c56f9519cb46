//! The relayer's gas over a window, for D30's revert budget: what relays that reverted
//! used, of everything the chain's relays used (`relayed_transactions_mined` index).

use diesel::sql_types::{BigInt, Integer, Timestamptz};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use stablepay_domain::rules::relay_budget::RelayGas;
use stablepay_domain::{ChainId, Timestamp};

const RELAY_GAS_SQL: &str = "SELECT \
     coalesce(sum(gas_used) FILTER (WHERE status = 'reverted'), 0)::int8 AS reverted, \
     coalesce(sum(gas_used), 0)::int8 AS spent \
     FROM relayed_transactions \
     WHERE chain_id = $1 AND mined_at >= $2 AND gas_used IS NOT NULL";

#[derive(diesel::QueryableByName)]
struct GasRow {
    #[diesel(sql_type = BigInt)]
    reverted: i64,
    #[diesel(sql_type = BigInt)]
    spent: i64,
}

pub(crate) async fn relay_gas(
    conn: &mut AsyncPgConnection,
    chain: ChainId,
    since: Timestamp,
) -> Result<RelayGas, diesel::result::Error> {
    let row: GasRow = diesel::sql_query(RELAY_GAS_SQL)
        .bind::<Integer, _>(chain.id() as i32)
        .bind::<Timestamptz, _>(since.as_datetime())
        .get_result(conn)
        .await?;
    // Sums of non-negative gas: never negative.
    Ok(RelayGas {
        reverted: u64::try_from(row.reverted).unwrap_or(0),
        spent: u64::try_from(row.spent).unwrap_or(0),
    })
}

/// `RelayRecords::relay_gas_since` on a connection of its own (`stablepay-api doctor`, which
/// has no pool). The error names what failed, never the URL.
pub async fn relay_gas_at(
    database_url: &str,
    chain: ChainId,
    since: Timestamp,
) -> Result<RelayGas, String> {
    let mut conn = AsyncPgConnection::establish(database_url)
        .await
        .map_err(|_| "the database could not be reached".to_string())?;
    relay_gas(&mut conn, chain, since)
        .await
        .map_err(|e| format!("relayer gas unreadable: {e}"))
}
