//! Re-proves the books against the chain for a block range (D32): every transaction the
//! contracts and deposit addresses logged, and every one the ledger names, is read again
//! from its receipt and the money each moved is compared with the ledger's sums. A missing
//! receipt or an RPC error is unknown (D17): reported as unverified, never a difference.

use std::collections::{HashMap, HashSet};
use std::fmt;

use futures_util::StreamExt;

use crate::model::{Address, ChainId, RefundId, Timestamp, TxHash};
use crate::ports::{ChainReceipt, ReconcileStore, SubscriptionEvent};
use crate::rules::confirmations::deepest_confirmed_block;
use crate::services::scan_chain::{read_all, watched_recipients, LogSources};
use crate::services::{followed_managers, SettleDeps, SettleError};

/// The range a reconcile covers by default: a day of Base's 2-second blocks.
pub const RECONCILE_DEFAULT_BLOCKS: u64 = 43_200;
/// Blocks per log read.
const LOG_RANGE: u64 = 2_000;
/// Receipts read at once.
const CONCURRENCY: usize = 8;

/// One way the books and the chain disagree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Difference {
    /// Money moved to a merchant on chain that no ledger entry books.
    OnChainNotBooked { tx: TxHash, amount_micros: i128 },
    /// The ledger books money the chain does not show moving.
    BookedNotOnChain { tx: TxHash, amount_micros: i128 },
    /// Both show money, not the same amount.
    AmountDiffers {
        tx: TxHash,
        booked_micros: i128,
        on_chain_micros: i128,
    },
    /// The same amount, split differently between fee and net.
    SplitDiffers {
        tx: TxHash,
        booked_fee_micros: i128,
        on_chain_fee_micros: i128,
    },
    /// A refund entry whose transfer is not on chain as booked.
    RefundDiffers {
        refund: RefundId,
        tx: TxHash,
        booked_micros: u64,
        on_chain_micros: Option<u128>,
    },
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = decimal;
        match self {
            Self::OnChainNotBooked { tx, amount_micros } => {
                write!(f, "on chain, not booked: {tx} moved {}", m(*amount_micros))
            }
            Self::BookedNotOnChain { tx, amount_micros } => write!(
                f,
                "booked, not on chain: {tx} is booked at {} and moved nothing",
                m(*amount_micros)
            ),
            Self::AmountDiffers {
                tx,
                booked_micros,
                on_chain_micros,
            } => write!(
                f,
                "amount differs: {tx} is booked at {} and moved {}",
                m(*booked_micros),
                m(*on_chain_micros)
            ),
            Self::SplitDiffers {
                tx,
                booked_fee_micros,
                on_chain_fee_micros,
            } => write!(
                f,
                "split differs: {tx} books a fee of {} and paid {}",
                m(*booked_fee_micros),
                m(*on_chain_fee_micros)
            ),
            Self::RefundDiffers {
                refund,
                tx,
                booked_micros,
                on_chain_micros,
            } => match on_chain_micros {
                Some(v) => write!(
                    f,
                    "refund differs: {refund} in {tx} is booked at {} and moved {}",
                    m(i128::from(*booked_micros)),
                    m(i128::try_from(*v).unwrap_or(i128::MAX))
                ),
                None => write!(
                    f,
                    "refund not on chain: {refund} in {tx} has no such transfer"
                ),
            },
        }
    }
}

/// Signed micro-units as the ledger writes them ("-3", "12.5").
fn decimal(micros: i128) -> String {
    crate::model::render_signed_micros(i64::try_from(micros).unwrap_or(i64::MAX))
}

/// What one run compared and found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReconcileReport {
    pub from: u64,
    pub to: u64,
    /// Transactions read again.
    pub transactions: usize,
    pub differences: Vec<Difference>,
    /// Transactions the node gave no answer for: neither proven nor disproven.
    pub unverified: Vec<(TxHash, String)>,
}

/// Blocks `from..=to` of `chain`, clamped to the blocks at confirmation depth (money above
/// them is not booked yet). `None` picks the last `default_blocks` at depth.
pub async fn reconcile_range(
    chain: ChainId,
    from: Option<u64>,
    to: Option<u64>,
    default_blocks: u64,
    deps: &SettleDeps<'_>,
) -> Result<(u64, u64), SettleError> {
    let contracts = deps.contracts(chain)?;
    let head = deps.chain.block_number(chain).await?;
    let deepest = deepest_confirmed_block(head, contracts.confirmations).unwrap_or(0);
    let to = to.unwrap_or(deepest).min(deepest);
    let from = from.unwrap_or_else(|| to.saturating_sub(default_blocks.saturating_sub(1)));
    Ok((from, to))
}

/// Money a transaction moved to merchants as the chain shows it.
#[derive(Debug, Clone, Copy, Default)]
struct Moved {
    amount: i128,
    fee: i128,
    /// Deposit money's fee is taken at the sweep, not in the transfer.
    fee_known: bool,
}

pub async fn reconcile_ledger(
    chain: ChainId,
    from: u64,
    to: u64,
    deps: &SettleDeps<'_>,
    books: &dyn ReconcileStore,
) -> Result<ReconcileReport, SettleError> {
    let contracts = deps.contracts(chain)?;
    let managers = followed_managers(chain, deps).await?;
    let sources = LogSources::of(chain, &contracts, &managers, deps);
    let booked = books.books_in_range(chain, from, to).await?;

    // Every transaction the contracts logged in the range, and those of transfers to a
    // deposit address (of any session, however old: a reconcile may look far back).
    let mut txs: Vec<TxHash> = Vec::new();
    let mut transfers = Vec::new();
    let mut start = from;
    while start <= to {
        let end = to.min(start + LOG_RANGE - 1);
        let (logged, moved) = read_all(chain, &sources, start, end, deps).await?;
        txs.extend(logged.iter().map(|l| l.tx_hash));
        transfers.extend(moved);
        start = end + 1;
    }
    let mut deposit_addresses: HashSet<Address> = booked.deposits.iter().map(|d| d.to).collect();
    deposit_addresses
        .extend(watched_recipients(chain, &transfers, Timestamp::UNIX_EPOCH, deps).await?);
    txs.extend(
        transfers
            .iter()
            .filter(|t| deposit_addresses.contains(&t.to))
            .map(|t| t.tx.tx_hash),
    );
    // And every transaction the books name.
    txs.extend(
        booked
            .txs
            .iter()
            .filter(|b| b.amount_micros != 0 || b.fee_micros != 0)
            .map(|b| b.tx_hash),
    );
    txs.extend(booked.deposits.iter().map(|d| d.tx_hash));
    txs.extend(booked.refunds.iter().map(|r| r.tx_hash));
    txs.sort_unstable();
    txs.dedup();

    let receipts: Vec<(TxHash, Result<Option<ChainReceipt>, String>)> =
        futures_util::stream::iter(txs.iter().copied())
            .map(|tx| async move {
                let r = deps
                    .chain
                    .receipt(chain, tx)
                    .await
                    .map_err(|e| e.to_string());
                (tx, r)
            })
            .buffer_unordered(CONCURRENCY)
            .collect()
            .await;
    let mut report = ReconcileReport {
        from,
        to,
        transactions: receipts.len(),
        ..ReconcileReport::default()
    };
    let mut unsure: HashSet<TxHash> = HashSet::new();
    let mut moved: HashMap<TxHash, Moved> = HashMap::new();
    let mut known: HashMap<TxHash, ChainReceipt> = HashMap::new();
    for (tx, receipt) in receipts {
        match receipt {
            Ok(Some(r)) => {
                known.insert(tx, r);
            }
            Ok(None) => {
                unsure.insert(tx);
                report
                    .unverified
                    .push((tx, "the node returned no receipt".into()));
            }
            Err(e) => {
                unsure.insert(tx);
                report.unverified.push((tx, e));
            }
        }
    }
    let watched = Watched {
        router: contracts.checkout_router,
        managers: &managers,
        tokens: &sources.tokens,
        deposit_addresses: &deposit_addresses,
        covers: booked
            .deposits
            .iter()
            .map(|d| ((d.tx_hash, d.to, d.token), d.booked_as))
            .collect(),
    };
    for (tx, r) in &known {
        watched.add_money_moved(*tx, r, &mut moved);
    }
    // A deposit payment shown as a transaction whose money came in another unread one is
    // as unsure as that one.
    for d in &booked.deposits {
        if let (Some(shown), true) = (d.booked_as, unsure.contains(&d.tx_hash)) {
            unsure.insert(shown);
        }
    }
    let ledger: HashMap<TxHash, (i128, i128)> = booked
        .txs
        .iter()
        .map(|b| {
            let sums = (i128::from(b.amount_micros), i128::from(b.fee_micros));
            (b.tx_hash, sums)
        })
        .collect();
    let mut keys: Vec<TxHash> = ledger.keys().chain(moved.keys()).copied().collect();
    keys.sort_unstable();
    keys.dedup();
    for tx in keys.into_iter().filter(|tx| !unsure.contains(tx)) {
        let (booked_amount, booked_fee) = ledger.get(&tx).copied().unwrap_or_default();
        let on_chain = moved.get(&tx).copied().unwrap_or(Moved {
            fee_known: true,
            ..Moved::default()
        });
        let difference = if booked_amount == on_chain.amount {
            (on_chain.fee_known && booked_fee != on_chain.fee).then_some(Difference::SplitDiffers {
                tx,
                booked_fee_micros: booked_fee,
                on_chain_fee_micros: on_chain.fee,
            })
        } else if booked_amount == 0 {
            Some(Difference::OnChainNotBooked {
                tx,
                amount_micros: on_chain.amount,
            })
        } else if on_chain.amount == 0 {
            Some(Difference::BookedNotOnChain {
                tx,
                amount_micros: booked_amount,
            })
        } else {
            Some(Difference::AmountDiffers {
                tx,
                booked_micros: booked_amount,
                on_chain_micros: on_chain.amount,
            })
        };
        report.differences.extend(difference);
    }
    for refund in &booked.refunds {
        let Some(r) = known.get(&refund.tx_hash) else {
            continue;
        };
        let transfer = r
            .transfers
            .iter()
            .find(|t| t.log_index == refund.log_index && t.token == refund.token)
            .filter(|_| r.succeeded);
        let on_chain = transfer.map(|t| t.value);
        if on_chain != Some(u128::from(refund.amount_micros)) {
            report.differences.push(Difference::RefundDiffers {
                refund: refund.refund,
                tx: refund.tx_hash,
                booked_micros: refund.amount_micros,
                on_chain_micros: on_chain,
            });
        }
    }
    Ok(report)
}

/// What counts as money moved to merchants on a chain.
struct Watched<'a> {
    router: Address,
    managers: &'a [Address],
    tokens: &'a [Address],
    deposit_addresses: &'a HashSet<Address>,
    /// The books' deposit transfers by (transaction, deposit address, token), with the
    /// transaction of the payment that booked each (`None`: waiting).
    covers: HashMap<(TxHash, Address, Address), Option<TxHash>>,
}

impl Watched<'_> {
    /// Adds what receipt `r` of `tx` moved to merchants: router payments and subscription
    /// charges (with their fee) to `tx`, deposit money to the transaction of the payment
    /// that booked it (waiting money to nothing, unbooked money to `tx` itself).
    fn add_money_moved(&self, tx: TxHash, r: &ChainReceipt, moved: &mut HashMap<TxHash, Moved>) {
        if !r.succeeded {
            return;
        }
        let mut add = |at: TxHash, amount: u128, fee: Option<u128>| {
            let m = moved.entry(at).or_insert(Moved {
                fee_known: true,
                ..Moved::default()
            });
            m.amount = m.amount.saturating_add(int(amount));
            match fee {
                Some(fee) => m.fee = m.fee.saturating_add(int(fee)),
                None => m.fee_known = false,
            }
        };
        for log in r.checkout_paid.iter().filter(|l| l.router == self.router) {
            add(
                tx,
                log.net_amount.saturating_add(log.fee_amount),
                Some(log.fee_amount),
            );
        }
        for log in &r.subscription_events {
            if let (
                true,
                SubscriptionEvent::Charged {
                    net_amount,
                    fee_amount,
                    ..
                },
            ) = (self.managers.contains(&log.manager), &log.event)
            {
                add(
                    tx,
                    net_amount.saturating_add(*fee_amount),
                    Some(*fee_amount),
                );
            }
        }
        for t in r
            .transfers
            .iter()
            .filter(|t| self.tokens.contains(&t.token) && self.deposit_addresses.contains(&t.to))
        {
            match self.covers.get(&(tx, t.to, t.token)) {
                Some(Some(shown)) => add(*shown, t.value, None),
                Some(None) => {}
                None => add(tx, t.value, None),
            }
        }
    }
}

fn int(v: u128) -> i128 {
    i128::try_from(v).unwrap_or(i128::MAX)
}

#[cfg(test)]
mod tests;
