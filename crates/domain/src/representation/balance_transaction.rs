//! `object: "balance_transaction"` (D32): one ledger entry as the API and the export show it.

use futures_util::stream::{self, BoxStream, StreamExt};
use serde::Serialize;
use utoipa::ToSchema;

use super::Resource;
use crate::model::{
    render_signed_micros, Address, Amount, BalanceTransaction, BalanceTransactionId, BalanceType,
    ChainId, Currency, Fiat, PaymentId, ReviewStatus, Timestamp, TxHash,
};
use crate::ports::{LedgerBatches, StoreError};

#[derive(Serialize, ToSchema)]
pub struct BalanceTransactionResource {
    pub id: BalanceTransactionId,
    pub object: &'static str,
    pub livemode: bool,
    #[serde(rename = "type")]
    pub kind: BalanceType,
    /// The `pay_` or `re_` id the entry comes from (a reversal's is the payment's).
    #[schema(example = "pay_0355RGziS6Gwe8zF5hRoCU")]
    pub source: String,
    /// The payment the money belongs to (for a refund, the refunded payment).
    pub payment: PaymentId,
    /// Signed decimal string: money in positive, refunds and reversals negative.
    #[schema(example = "-3")]
    pub amount: String,
    /// The service's fee in this entry (signed like `amount`).
    pub fee: String,
    /// `amount - fee`: what the merchant's wallet gained (or lost).
    pub net: String,
    pub currency: Currency,
    pub chain_id: ChainId,
    pub token_address: Address,
    pub tx_hash: TxHash,
    pub log_index: u64,
    /// Decimal string; null only for refunds booked before the ledger existed.
    pub block_number: Option<String>,
    /// The block's timestamp; null only for entries backfilled when the ledger was added.
    pub block_time: Option<Timestamp>,
    pub created_at: Timestamp,
    /// The screening state of the entry's payment (D33), as it is now: `pending` while
    /// the merchant has not decided on a payer a sanctions source listed after the money
    /// moved, then `approved` or `returned`; null when the payment was never held.
    pub review: Option<ReviewStatus>,
    /// The price in a currency the entry's payment's session had (D34), which its token
    /// amounts were converted from; null when priced in token units. Flat, as the CSV
    /// export's columns.
    pub price_amount: Option<Amount>,
    /// `USD` or `EUR`; null when priced in token units.
    pub price_currency: Option<Fiat>,
    /// The feed pair the price was quoted at (`EUR/USD`, or the token's own for a peg).
    #[schema(example = "EUR/USD")]
    pub quote_pair: Option<&'static str>,
    /// The quoted rate (8 decimals at most): USD per EUR for `EUR/USD`, "1" for a peg.
    #[schema(example = "1.0825")]
    pub quote_rate: Option<String>,
}

impl From<BalanceTransaction> for BalanceTransactionResource {
    fn from(e: BalanceTransaction) -> Self {
        Self {
            id: e.id,
            object: Self::OBJECT,
            livemode: e.mode.is_live(),
            kind: e.kind,
            source: e.source.to_string(),
            payment: e.payment,
            amount: render_signed_micros(e.amount_micros),
            fee: render_signed_micros(e.fee_micros),
            net: render_signed_micros(e.net_micros),
            currency: e.currency,
            chain_id: e.chain,
            token_address: e.token_address,
            tx_hash: e.tx_hash,
            log_index: e.log_index,
            block_number: e.block_number.map(|n| n.to_string()),
            block_time: e.block_time,
            created_at: e.created_at,
            review: e.review,
            price_amount: e.priced.as_ref().map(|p| p.price.amount),
            price_currency: e.priced.as_ref().map(|p| p.price.fiat),
            quote_pair: e.priced.as_ref().map(|p| p.quote.pair.as_str()),
            quote_rate: e.priced.as_ref().map(|p| super::render_e8(p.quote.rate_e8)),
        }
    }
}

impl Resource for BalanceTransactionResource {
    const OBJECT: &'static str = "balance_transaction";
}

impl BalanceTransactionResource {
    /// The export's header row (D32): the resource's field names, `object` left out.
    pub const CSV_HEADER: &'static str = "id,type,source,payment,amount,fee,net,currency,\
        chain_id,token_address,tx_hash,log_index,block_number,block_time,created_at,livemode,review,price_amount,price_currency,quote_pair,quote_rate\n";

    /// Appends this entry as one CSV row in `CSV_HEADER`'s order. No field needs quoting:
    /// each is an id, a decimal, a hex string, a number or an RFC 3339 time, none of which
    /// can hold a comma, a quote or a line break. Absent values are empty fields.
    pub fn write_csv_row(&self, out: &mut String) {
        use std::fmt::Write;
        let block_time = self.block_time.map(|t| t.to_string()).unwrap_or_default();
        // Writing to a String cannot fail.
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            self.id,
            self.kind.as_str(),
            self.source,
            self.payment,
            self.amount,
            self.fee,
            self.net,
            self.currency,
            self.chain_id.id(),
            self.token_address,
            self.tx_hash,
            self.log_index,
            self.block_number.as_deref().unwrap_or_default(),
            block_time,
            self.created_at,
            self.livemode,
            self.review.map(ReviewStatus::as_str).unwrap_or_default(),
            self.price_amount.map(|a| a.to_string()).unwrap_or_default(),
            self.price_currency.map(Fiat::as_str).unwrap_or_default(),
            self.quote_pair.unwrap_or_default(),
            self.quote_rate.as_deref().unwrap_or_default(),
        );
    }
}

/// The export's body (D32) as text: the header, then each batch's rows as the batch
/// arrives. A failed batch is the stream's error; what serves it must end the transfer
/// unfinished, never as a file that looks complete.
pub fn ledger_csv(batches: LedgerBatches) -> BoxStream<'static, Result<String, StoreError>> {
    let header = stream::once(async { Ok(BalanceTransactionResource::CSV_HEADER.to_owned()) });
    let rows = batches.map(|batch| {
        batch.map(|entries| {
            let mut out = String::with_capacity(entries.len() * 256);
            for entry in entries {
                BalanceTransactionResource::from(entry).write_csv_row(&mut out);
            }
            out
        })
    });
    header.chain(rows).boxed()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Amount, PaymentStatus};
    use crate::rules::ledger::{payment_entries, reversal_of, MoneyIn};
    use crate::services::fixtures::settlement::{receipt, recorded, session};

    /// Every CSV column holds what the JSON field of the same name holds, as text.
    fn assert_row_matches_json(entry: BalanceTransaction) {
        let resource = BalanceTransactionResource::from(entry);
        let json = serde_json::to_value(&resource).unwrap();
        let mut row = String::new();
        resource.write_csv_row(&mut row);
        let header: Vec<&str> = BalanceTransactionResource::CSV_HEADER
            .trim_end()
            .split(',')
            .collect();
        let cells: Vec<&str> = row.strip_suffix('\n').unwrap().split(',').collect();
        assert_eq!(cells.len(), header.len(), "{row}");
        for (name, cell) in header.iter().zip(&cells) {
            let expected = match &json[name] {
                serde_json::Value::Null => String::new(),
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            assert_eq!(*cell, expected, "column {name}");
        }
        // Every JSON field but `object` is a column.
        let fields = json.as_object().unwrap().keys().filter(|k| *k != "object");
        assert_eq!(fields.count(), header.len());
    }

    #[test]
    fn a_csv_row_holds_the_json_fields_in_the_header_order() {
        let s = session();
        let mut p = recorded(&s, &receipt(&s), PaymentStatus::Confirmed);
        p.amount = Amount::from_micros(10_500_000).unwrap();
        p.fee_micros = 105_000;
        p.overpaid_micros = 250_000;
        p.log_index = Some(3);
        let t = Timestamp::from_unix_seconds(1_790_000_000).unwrap();
        let entries = payment_entries(&p, MoneyIn::Payment, t, t).unwrap();
        assert_eq!(entries.len(), 2);
        // A reversal: negative amounts.
        assert_row_matches_json(reversal_of(&entries[0], t));
        // A backfilled entry: no block number, no block time (empty cells).
        let mut backfilled = entries[1].clone();
        backfilled.block_number = None;
        backfilled.block_time = None;
        assert_row_matches_json(backfilled);
        // A held payment's entry: its review's status.
        let mut held = entries[0].clone();
        held.review = Some(ReviewStatus::Pending);
        assert_row_matches_json(held);
        // A priced payment's entry: its price and quote.
        let mut priced = entries[0].clone();
        priced.priced = Some(crate::model::QuotedPrice {
            price: crate::model::Price {
                amount: Amount::parse("20").unwrap(),
                fiat: Fiat::Eur,
            },
            quote: crate::model::Quote {
                pair: crate::model::FeedPair::EurUsd,
                rate_e8: 108_250_000,
                feed: Address::from_bytes([0x61; 20]),
                round_id: 7,
                updated_at: t,
                expires_at: None,
            },
        });
        let resource = BalanceTransactionResource::from(priced.clone());
        assert_eq!(
            (
                resource.price_amount.map(|a| a.to_string()),
                resource.quote_rate.as_deref()
            ),
            (Some("20".to_owned()), Some("1.0825"))
        );
        assert_row_matches_json(priced);
        for entry in entries {
            assert_row_matches_json(entry);
        }
    }
}
