//! The dashboard's summaries: settled money per day, customers with what they paid.

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::sql_types::{Bool, Int8, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel::QueryableByName;
use diesel_async::RunQueryDsl;
use stablepay_domain::ports::{DashboardReader, StoreError};
use stablepay_domain::{
    Address, Currency, CustomerId, CustomerSummary, DailyTotal, MerchantId, Mode, Page,
    PageRequest, Timestamp,
};
use uuid::Uuid;

use crate::error::{corrupt, map_diesel_error};
use crate::PgStore;

#[derive(QueryableByName)]
struct DayRow {
    #[diesel(sql_type = diesel::sql_types::Date)]
    day: NaiveDate,
    #[diesel(sql_type = Text)]
    currency: String,
    #[diesel(sql_type = Int8)]
    payments: i64,
    #[diesel(sql_type = Int8)]
    gross: i64,
    #[diesel(sql_type = Int8)]
    fee: i64,
    #[diesel(sql_type = Int8)]
    net: i64,
    #[diesel(sql_type = Int8)]
    refunded: i64,
}

#[derive(QueryableByName)]
struct CustomerRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = Text)]
    address: String,
    #[diesel(sql_type = Timestamptz)]
    created_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Text>)]
    customer_reference: Option<String>,
    #[diesel(sql_type = Int8)]
    payments: i64,
    #[diesel(sql_type = Int8)]
    usdc: i64,
    #[diesel(sql_type = Int8)]
    usdt: i64,
    #[diesel(sql_type = Int8)]
    eurc: i64,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    last_payment_at: Option<DateTime<Utc>>,
}

fn micros(v: i64, what: &str) -> Result<u64, StoreError> {
    u64::try_from(v).map_err(|_| corrupt(what, v))
}

const DAILY_TOTALS: &str = "
SELECT (created_at AT TIME ZONE 'UTC')::date AS day, currency,
       count(*) AS payments,
       coalesce(sum(amount_micros), 0)::int8 AS gross,
       coalesce(sum(fee_micros), 0)::int8 AS fee,
       coalesce(sum(merchant_micros), 0)::int8 AS net,
       coalesce(sum(refunded_micros), 0)::int8 AS refunded
  FROM payments
 WHERE merchant_id = $1 AND livemode = $2 AND created_at >= $3
   AND status IN ('confirmed', 'refunded')
 GROUP BY 1, 2
 ORDER BY 1, 2";

// The lateral aggregate reads only this page's customers' payments.
const CUSTOMERS: &str = "
SELECT c.id, c.address, c.created_at, agg.customer_reference, agg.payments, agg.usdc,
       agg.usdt, agg.eurc, agg.last_payment_at
  FROM customers c
  CROSS JOIN LATERAL (
    SELECT count(*) FILTER (WHERE p.status IN ('confirmed', 'refunded')) AS payments,
           coalesce(sum(p.amount_micros) FILTER (WHERE p.currency = 'USDC'
               AND p.status IN ('confirmed', 'refunded')), 0)::int8 AS usdc,
           coalesce(sum(p.amount_micros) FILTER (WHERE p.currency = 'USDT'
               AND p.status IN ('confirmed', 'refunded')), 0)::int8 AS usdt,
           coalesce(sum(p.amount_micros) FILTER (WHERE p.currency = 'EURC'
               AND p.status IN ('confirmed', 'refunded')), 0)::int8 AS eurc,
           max(p.created_at) FILTER (WHERE p.status IN ('confirmed', 'refunded'))
               AS last_payment_at,
           (array_agg(p.customer_reference ORDER BY p.id DESC)
               FILTER (WHERE p.customer_reference IS NOT NULL))[1] AS customer_reference
      FROM payments p
     WHERE p.merchant_id = c.merchant_id AND p.livemode = c.livemode
       AND p.customer_id = c.id
  ) agg
 WHERE c.merchant_id = $1 AND c.livemode = $2 AND ($3::uuid IS NULL OR c.id < $3)
 ORDER BY c.id DESC
 LIMIT $4";

#[async_trait]
impl DashboardReader for PgStore {
    async fn daily_totals(
        &self,
        merchant: MerchantId,
        mode: Mode,
        since: Timestamp,
    ) -> Result<Vec<DailyTotal>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<DayRow> = diesel::sql_query(DAILY_TOTALS)
            .bind::<SqlUuid, _>(merchant.uuid())
            .bind::<Bool, _>(mode.is_live())
            .bind::<Timestamptz, _>(since.as_datetime())
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        rows.into_iter()
            .map(|r| {
                Ok(DailyTotal {
                    day: r.day,
                    currency: Currency::parse(&r.currency)
                        .ok_or_else(|| corrupt("currency", &r.currency))?,
                    payments: micros(r.payments, "count")?,
                    gross_micros: micros(r.gross, "gross")?,
                    fee_micros: micros(r.fee, "fee")?,
                    net_micros: micros(r.net, "net")?,
                    refunded_micros: micros(r.refunded, "refunded")?,
                })
            })
            .collect()
    }

    async fn deposit_transfers(
        &self,
        merchant: MerchantId,
        mode: Mode,
        session: stablepay_domain::CheckoutSessionId,
    ) -> Result<Vec<stablepay_domain::ports::DepositTransfer>, StoreError> {
        use crate::rows::DepositTransferRow;
        use crate::schema::{checkout_sessions as cs, deposit_transfers as dt};
        use diesel::{ExpressionMethods, JoinOnDsl, QueryDsl, SelectableHelper};
        let mut conn = self.conn().await?;
        let rows: Vec<DepositTransferRow> = dt::table
            .inner_join(cs::table.on(cs::id.eq(dt::checkout_session_id)))
            .filter(cs::merchant_id.eq(merchant.uuid()))
            .filter(cs::livemode.eq(mode.is_live()))
            .filter(dt::checkout_session_id.eq(session.uuid()))
            .order((dt::block_number.asc(), dt::log_index.asc()))
            .select(DepositTransferRow::as_select())
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        rows.into_iter()
            .map(stablepay_domain::ports::DepositTransfer::try_from)
            .collect()
    }

    async fn customers(
        &self,
        merchant: MerchantId,
        mode: Mode,
        page: &PageRequest,
    ) -> Result<Page<CustomerSummary>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<CustomerRow> = diesel::sql_query(CUSTOMERS)
            .bind::<SqlUuid, _>(merchant.uuid())
            .bind::<Bool, _>(mode.is_live())
            .bind::<Nullable<SqlUuid>, _>(page.starting_after())
            .bind::<Int8, _>(page.fetch_limit())
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Page::from_overfetch(rows, page).try_map(|r| {
            Ok(CustomerSummary {
                id: CustomerId::from_uuid(r.id),
                wallet_address: Address::parse(&r.address)
                    .map_err(|_| corrupt("customer address", &r.address))?,
                customer_reference: r.customer_reference,
                payments: micros(r.payments, "count")?,
                paid_micros: [
                    (Currency::Usdc, micros(r.usdc, "usdc")?),
                    (Currency::Usdt, micros(r.usdt, "usdt")?),
                    (Currency::Eurc, micros(r.eurc, "eurc")?),
                ]
                .into_iter()
                .filter(|(_, m)| *m > 0)
                .collect(),
                created_at: Timestamp::new(r.created_at),
                last_payment_at: r.last_payment_at.map(Timestamp::new),
            })
        })
    }
}
