//! One tick of the chain watcher (DESIGN §6, D17): read router logs from the stored cursor
//! up to the head, settle each logged transaction on a fetched receipt, move the cursor
//! only past blocks at depth whose every transaction was settled or rejected, then
//! re-check pending payments. Every RPC failure or missing answer is unknown: it holds
//! the cursor back or leaves a payment pending, and is retried on the next tick.

use std::collections::{HashMap, HashSet};

use futures_util::StreamExt;

use crate::deployment::ChainContracts;
use crate::model::{Address, BlockHash, ChainId, PaymentId, TxHash};
use crate::ports::{LoggedTx, TransferLog};
use crate::rules::confirmations::{deepest_confirmed_block, is_confirmed};
use crate::services::{
    followed_managers, recheck_booked_payments, recheck_pending_deposits, recheck_pending_payment,
    record_ended_deposits, settle_deposit_receipt, settle_receipt, settle_subscription_receipt,
    BookedCheck, SettleDeps, SettleError, SettleOutcome,
};

/// Where a first scan starts when no cursor is stored: this many blocks below the head.
pub const INITIAL_LOOKBACK: u64 = 1000;
/// Receipts fetched at once.
const CONCURRENCY: usize = 16;
/// Pending payments re-checked per tick.
const RECHECKS_PER_TICK: u32 = 200;
/// Smaller `eth_getLogs` ranges tried in one tick after a refusal.
const RANGE_RETRIES: usize = 3;
/// Successful reads before a shrunk range is doubled again.
const GROW_AFTER: u32 = 16;
/// Blocks below the cursor read again every tick (at least the confirmation depth): a
/// load-balanced provider whose log node lags the head node cannot make the cursor skip
/// a payment, as long as the lag is shorter than this.
pub const DEFAULT_TRAIL: u64 = 16;
/// Blocks below the head whose booked payments are re-checked for reorgs deeper than the
/// confirmation depth (D32): about 33 minutes of Base's 2-second blocks.
pub const BOOKED_WINDOW: u64 = 1_000;
/// How long after a session's expiry its deposit address is still watched: late money
/// arriving within this window is booked (the forwarder pays the merchant regardless).
pub const LATE_DEPOSIT_WINDOW_SECS: i64 = 7 * 24 * 3600;
/// Recipients looked up in the database per query.
const RECIPIENTS_PER_LOOKUP: usize = 1000;

/// The `eth_getLogs` range, adapted to what the provider accepts: halved when a read
/// fails, doubled again after a run of successes.
#[derive(Debug, Clone)]
pub struct LogRange {
    max: u64,
    current: u64,
    successes: u32,
}

impl LogRange {
    pub fn new(max: u64) -> Self {
        let max = max.max(1);
        Self {
            max,
            current: max,
            successes: 0,
        }
    }

    pub fn current(&self) -> u64 {
        self.current
    }

    /// Halves the range after a failed read of `tried` blocks; false when it cannot shrink.
    fn shrink(&mut self, tried: u64) -> bool {
        self.successes = 0;
        if tried <= 1 {
            return false;
        }
        self.current = (tried / 2).max(1);
        true
    }

    fn succeeded(&mut self) {
        self.successes += 1;
        if self.successes >= GROW_AFTER && self.current < self.max {
            self.current = (self.current * 2).min(self.max);
            self.successes = 0;
        }
    }
}

/// What the watcher carries from tick to tick: the log range the provider accepts, and
/// the transactions resolved for good in the window above the cursor: settled or rejected
/// on a receipt at depth (so a block is passed once each of its transactions was resolved
/// on some tick, and a final transaction is not fetched again). Transactions below depth
/// are fetched every tick, so they confirm in the tick their block reaches depth. Keyed
/// by block hash: a transaction re-mined elsewhere is new.
#[derive(Debug, Clone)]
pub struct ScanState {
    pub range: LogRange,
    trail: u64,
    resolved: HashMap<TxHash, (u64, BlockHash)>,
    /// The last pending payment re-checked: re-checks go round-robin, so payments that
    /// stay pending for long (a node that never answers for them) cannot starve others.
    recheck_after: Option<PaymentId>,
    /// How many blocks below the head booked payments are re-checked (D32), and the last
    /// one re-checked (round-robin, as for pending payments).
    booked_window: u64,
    booked_after: Option<(u64, PaymentId)>,
}

impl ScanState {
    pub fn new(max_range: u64) -> Self {
        Self {
            range: LogRange::new(max_range),
            trail: DEFAULT_TRAIL,
            resolved: HashMap::new(),
            recheck_after: None,
            booked_window: BOOKED_WINDOW,
            booked_after: None,
        }
    }

    /// How many blocks below the head booked payments are re-checked for reorgs.
    pub fn with_booked_window(mut self, blocks: u64) -> Self {
        self.booked_window = blocks;
        self
    }

    /// How many blocks below the cursor each tick reads again (see `DEFAULT_TRAIL`).
    pub fn with_trail(mut self, blocks: u64) -> Self {
        self.trail = blocks;
        self
    }

    /// The re-read window for a chain at `depth`, never more than half a log range (so
    /// a tick always reads past the cursor).
    fn trail(&self, depth: u64) -> u64 {
        if self.trail == 0 {
            return 0;
        }
        self.trail.max(depth).min(self.range.current() / 2)
    }

    fn is_resolved(&self, logged: &LoggedTx) -> bool {
        self.resolved.get(&logged.tx_hash) == Some(&(logged.block_number, logged.block_hash))
    }

    fn forget_below(&mut self, cursor: u64) {
        self.resolved.retain(|_, (block, _)| *block >= cursor);
    }
}

/// What one tick did, for the worker's log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanReport {
    pub head: u64,
    /// Blocks read (`from..=to`), if any.
    pub read: Option<(u64, u64)>,
    /// The stored cursor after the tick (the next block to read).
    pub cursor: u64,
    pub settled: Vec<(TxHash, SettleOutcome)>,
    /// Transactions left for a later tick, with why (unknown receipt, RPC error, ...).
    pub unresolved: Vec<(TxHash, String)>,
    pub rechecked: Vec<(TxHash, SettleOutcome)>,
    pub recheck_errors: Vec<(TxHash, String)>,
    /// The router logs could not be read this tick (the re-checks still ran).
    pub log_error: Option<String>,
    /// Deposit re-checks and bookings that failed this tick (retried on the next).
    pub deposit_errors: Vec<String>,
    /// Booked payments a reorg moved or took out this tick, and re-checks that failed.
    pub rebooked: Vec<(TxHash, BookedCheck)>,
    pub rebook_errors: Vec<String>,
}

/// A logged transaction is resolved when its receipt was fetched and settled or
/// rejected, or when its log came from a block the canonical chain replaced at depth.
enum Resolution {
    /// `final_`: the receipt was at depth, so nothing about it changes any more.
    Settled {
        outcomes: Vec<SettleOutcome>,
        final_: bool,
    },
    StaleLog,
    Unresolved(String),
}

pub async fn scan_chain(
    chain: ChainId,
    state: &mut ScanState,
    deps: &SettleDeps<'_>,
) -> Result<ScanReport, SettleError> {
    let contracts = deps.contracts(chain)?;
    let head = deps.chain.block_number(chain).await?;
    let from = match deps.store.chain_cursor(chain).await? {
        Some(next) => next,
        None => head.saturating_sub(INITIAL_LOOKBACK),
    };
    let mut report = ScanReport {
        head,
        cursor: from,
        ..ScanReport::default()
    };
    let mut handled = HashSet::new();
    let read_from = from.saturating_sub(state.trail(contracts.confirmations));
    let managers = followed_managers(chain, deps).await?;
    let read = if from <= head {
        let sources = LogSources::of(chain, &contracts, &managers, deps);
        let range = &mut state.range;
        let read = async {
            let (logs, transfers, to) =
                read_logs(chain, &sources, read_from, head, range, deps).await?;
            Ok::<_, SettleError>((with_deposits(chain, logs, transfers, deps).await?, to))
        };
        match read.await {
            Ok(read) => Some(read),
            Err(e) => {
                report.log_error = Some(e.to_string());
                None
            }
        }
    } else {
        None
    };
    if let Some((logs, to)) = read {
        report.read = Some((read_from, to));
        let fresh: Vec<LoggedTx> = logs.into_iter().filter(|l| !state.is_resolved(l)).collect();
        let results: Vec<(LoggedTx, Resolution)> = futures_util::stream::iter(fresh)
            .map(|logged| async move { (logged, resolve(chain, logged, head, deps).await) })
            .buffer_unordered(CONCURRENCY)
            .collect()
            .await;
        // The cursor passes only blocks at depth, and never an unresolved transaction.
        let mut next = deepest_confirmed_block(head, contracts.confirmations)
            .map_or(from, |deepest| deepest.min(to) + 1)
            .max(from);
        for (logged, resolution) in results {
            handled.insert(logged.tx_hash);
            match resolution {
                Resolution::Settled { outcomes, final_ } => {
                    if final_ {
                        state
                            .resolved
                            .insert(logged.tx_hash, (logged.block_number, logged.block_hash));
                    }
                    report
                        .settled
                        .extend(outcomes.into_iter().map(|o| (logged.tx_hash, o)));
                }
                Resolution::StaleLog => {}
                Resolution::Unresolved(why) => {
                    next = next.min(logged.block_number);
                    report.unresolved.push((logged.tx_hash, why));
                }
            }
        }
        if next > from {
            deps.store.set_chain_cursor(chain, next).await?;
            report.cursor = next;
            state.forget_below(next.saturating_sub(state.trail.max(contracts.confirmations)));
        }
    }
    // One bad transaction never stops the re-checks of the others.
    let batch = deps
        .store
        .pending_payments(chain, state.recheck_after, RECHECKS_PER_TICK)
        .await?;
    // A short batch reached the newest: the next tick starts from the oldest again.
    state.recheck_after = match batch.last() {
        Some(last) if batch.len() == RECHECKS_PER_TICK as usize => Some(last.payment.id),
        _ => None,
    };
    let pending: Vec<_> = batch
        .into_iter()
        .filter(|p| !handled.contains(&p.tx_hash))
        .collect();
    let rechecks: Vec<_> = futures_util::stream::iter(pending)
        .map(|p| async move {
            let outcome = recheck_pending_payment(&p, head, deps).await;
            (p.tx_hash, outcome)
        })
        .buffer_unordered(CONCURRENCY)
        .collect()
        .await;
    for (tx, outcome) in rechecks {
        match outcome {
            Ok(outcome) => report.rechecked.push((tx, outcome)),
            Err(e) => report.recheck_errors.push((tx, e.to_string())),
        }
    }
    match recheck_pending_deposits(chain, head, &handled, RECHECKS_PER_TICK, deps).await {
        Ok(rechecks) => {
            for (tx, outcome) in rechecks {
                match outcome {
                    Ok(outcome) => report.rechecked.push((tx, outcome)),
                    Err(e) => report.recheck_errors.push((tx, e.to_string())),
                }
            }
        }
        Err(e) => report.deposit_errors.push(e.to_string()),
    }
    // Booked payments over the trailing window: a reorg deeper than the confirmation
    // depth must not leave money in the books that the chain no longer holds (D32).
    let from_block = head.saturating_sub(state.booked_window);
    match recheck_booked_payments(chain, head, from_block, state.booked_after, deps).await {
        Ok(tick) => {
            state.booked_after = tick.next;
            for (tx, checked) in tick.checked {
                match checked {
                    Ok(BookedCheck::Standing) => {}
                    Ok(done) => report.rebooked.push((tx, done)),
                    Err(e) => report.rebook_errors.push(format!("{tx}: {e}")),
                }
            }
        }
        Err(e) => report.rebook_errors.push(e.to_string()),
    }
    match record_ended_deposits(chain, deps).await {
        Ok(booked) => report.deposit_errors.extend(
            booked
                .into_iter()
                .filter_map(|(id, r)| r.err().map(|e| format!("session {id}: {e}"))),
        ),
        Err(e) => report.deposit_errors.push(e.to_string()),
    }
    Ok(report)
}

/// Reads `from..=min(head, from + range − 1)`, halving the range when the provider
/// refuses it. Returns the router and manager logs, the tokens' transfers and the last
/// block read.
async fn read_logs(
    chain: ChainId,
    sources: &LogSources<'_>,
    from: u64,
    head: u64,
    range: &mut LogRange,
    deps: &SettleDeps<'_>,
) -> Result<(Vec<LoggedTx>, Vec<TransferLog>, u64), SettleError> {
    let mut tries = 0;
    loop {
        let to = head.min(from + range.current() - 1);
        match read_all(chain, sources, from, to, deps).await {
            Ok((logs, transfers)) => {
                range.succeeded();
                return Ok((logs, transfers, to));
            }
            Err(e) => {
                tries += 1;
                if tries > RANGE_RETRIES || !range.shrink(to - from + 1) {
                    return Err(e.into());
                }
            }
        }
    }
}

/// What a tick (or a reconcile) reads logs of.
pub(crate) struct LogSources<'a> {
    pub(crate) contracts: &'a ChainContracts,
    /// Tokens whose `Transfer` logs are read, once per range (none without a deposit
    /// factory): their recipients are matched against the watched deposit addresses.
    pub(crate) tokens: Vec<Address>,
    /// Subscription managers whose events are read (see `followed_managers`).
    pub(crate) managers: &'a [Address],
}

impl<'a> LogSources<'a> {
    pub(crate) fn of(
        chain: ChainId,
        contracts: &'a ChainContracts,
        managers: &'a [Address],
        deps: &SettleDeps<'_>,
    ) -> Self {
        Self {
            contracts,
            tokens: match contracts.deposit_factory {
                Some(_) => deps.tokens.tokens_on(chain),
                None => Vec::new(),
            },
            managers,
        }
    }
}

/// Router and subscription-manager logs of `from..=to`, one entry per transaction, and
/// the configured tokens' transfers of the same blocks. A tick's reads follow the
/// contracts, never the number of open sessions.
pub(crate) async fn read_all(
    chain: ChainId,
    sources: &LogSources<'_>,
    from: u64,
    to: u64,
    deps: &SettleDeps<'_>,
) -> Result<(Vec<LoggedTx>, Vec<TransferLog>), crate::ports::ChainError> {
    let contracts = sources.contracts;
    let mut logs = deps
        .chain
        .checkout_paid_logs(chain, contracts.checkout_router, from, to)
        .await?;
    for manager in sources.managers {
        logs.extend(
            deps.chain
                .subscription_logs(chain, *manager, from, to)
                .await?,
        );
    }
    let transfers = if sources.tokens.is_empty() {
        Vec::new()
    } else {
        deps.chain
            .token_transfers(chain, &sources.tokens, from, to)
            .await?
    };
    Ok((logs, transfers))
}

/// Adds the transactions of transfers to watched deposit addresses (looked up in the
/// database by the recipients seen, in chunks) to `logs`: one entry per transaction, in
/// chain order.
async fn with_deposits(
    chain: ChainId,
    logs: Vec<LoggedTx>,
    transfers: Vec<TransferLog>,
    deps: &SettleDeps<'_>,
) -> Result<Vec<LoggedTx>, SettleError> {
    let since = deps.clock.now().plus_seconds(-LATE_DEPOSIT_WINDOW_SECS);
    let watched = watched_recipients(chain, &transfers, since, deps).await?;
    let mut seen = HashSet::new();
    let mut all = Vec::with_capacity(logs.len());
    let deposits = transfers
        .into_iter()
        .filter(|t| watched.contains(&t.to))
        .map(|t| t.tx);
    for logged in logs.into_iter().chain(deposits) {
        if seen.insert(logged.tx_hash) {
            all.push(logged);
        }
    }
    all.sort_by_key(|l| l.block_number);
    Ok(all)
}

/// The recipients of `transfers` that are deposit addresses of sessions expiring at or
/// after `since`, looked up in the database in chunks.
pub(crate) async fn watched_recipients(
    chain: ChainId,
    transfers: &[TransferLog],
    since: crate::model::Timestamp,
    deps: &SettleDeps<'_>,
) -> Result<HashSet<Address>, SettleError> {
    let mut recipients: Vec<Address> = transfers.iter().map(|t| t.to).collect();
    recipients.sort_unstable();
    recipients.dedup();
    let mut watched = HashSet::new();
    for chunk in recipients.chunks(RECIPIENTS_PER_LOOKUP) {
        watched.extend(deps.deposits.watched_among(chain, chunk, since).await?);
    }
    Ok(watched)
}

/// Settles whatever a receipt holds: router payments, subscription-manager events and
/// transfers to deposit addresses.
pub async fn settle_any_receipt(
    chain: ChainId,
    receipt: &crate::ports::ChainReceipt,
    head: u64,
    deps: &SettleDeps<'_>,
) -> Result<Vec<SettleOutcome>, SettleError> {
    let router = deps.contracts(chain)?.checkout_router;
    let mut outcomes = settle_subscription_receipt(chain, receipt, head, deps).await?;
    let deposits = settle_deposit_receipt(chain, receipt, head, deps).await?;
    // A receipt with nothing else is judged as a router payment (and rejected as one).
    if (outcomes.is_empty() && deposits.is_empty())
        || receipt.checkout_paid.iter().any(|l| l.router == router)
    {
        outcomes.extend(settle_receipt(chain, receipt, head, deps).await?);
    }
    outcomes.extend(deposits);
    Ok(outcomes)
}

async fn resolve(chain: ChainId, logged: LoggedTx, head: u64, deps: &SettleDeps<'_>) -> Resolution {
    let receipt = match deps.chain.receipt(chain, logged.tx_hash).await {
        Ok(Some(receipt)) => receipt,
        Ok(None) => return stale_or_unknown(chain, logged, head, deps).await,
        Err(e) => return Resolution::Unresolved(e.to_string()),
    };
    let final_ = deps
        .contracts(chain)
        .is_ok_and(|c| is_confirmed(head, receipt.block_number, c.confirmations));
    match settle_any_receipt(chain, &receipt, head, deps).await {
        Ok(outcomes) => {
            if let Some(SettleOutcome::Deferred(why)) = outcomes
                .iter()
                .find(|o| matches!(o, SettleOutcome::Deferred(_)))
            {
                return Resolution::Unresolved(why.clone());
            }
            Resolution::Settled { outcomes, final_ }
        }
        Err(e) => Resolution::Unresolved(e.to_string()),
    }
}

/// No receipt for a logged transaction: unknown, unless the log's block was replaced in
/// the canonical chain and that height is at depth (the log itself was stale).
async fn stale_or_unknown(
    chain: ChainId,
    logged: LoggedTx,
    head: u64,
    deps: &SettleDeps<'_>,
) -> Resolution {
    let unknown = || Resolution::Unresolved("the node returned no receipt yet".into());
    let Ok(contracts) = deps.contracts(chain) else {
        return unknown();
    };
    if !is_confirmed(head, logged.block_number, contracts.confirmations) {
        return unknown();
    }
    match deps.chain.block_hash(chain, logged.block_number).await {
        Ok(Some(canonical)) if canonical != logged.block_hash => Resolution::StaleLog,
        _ => unknown(),
    }
}

#[cfg(test)]
mod deposit_reads;
#[cfg(test)]
mod tests;
