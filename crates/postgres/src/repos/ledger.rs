//! The ledger's writes (D32): entries appended on the connection, and so in the
//! transaction, of the booking they record. The table refuses UPDATE and DELETE itself.

use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use stablepay_domain::BalanceTransaction;

use crate::rows::BalanceTransactionRow;
use crate::schema::balance_transactions as bt;

pub(crate) async fn append_entries(
    conn: &mut AsyncPgConnection,
    entries: &[BalanceTransaction],
) -> QueryResult<()> {
    if entries.is_empty() {
        return Ok(());
    }
    let rows: Vec<BalanceTransactionRow> = entries.iter().map(Into::into).collect();
    diesel::insert_into(bt::table)
        .values(&rows)
        .execute(conn)
        .await?;
    Ok(())
}
