//! Relayed payments after the api sent them (D23, D26, D30): the attempt mined at a
//! relay's nonce is recorded with its gas (a reverted one cools its payer down); a mined
//! fill gives the payment up. One unmined is followed by the one rule for sent work
//! ([`follow_unmined`]): replaced at higher fees while its session is still open and the
//! payment would still go through, its nonce filled when not (a session paid meanwhile
//! by its deposit address is never paid twice), dropped when its nonce was lost.

use crate::model::{ChainId, SessionStatus, TxHash};
use crate::ports::{
    ChainError, ChainReader, DepositStore, GasReceipt, RelaySimulation, Resent, SendError,
    SentRelays, SentWork, WorkKind,
};
use crate::services::follow_sent_work::{follow_unmined, SendingDeps, Unmined};

pub struct RelayDeps<'a> {
    pub sending: SendingDeps<'a>,
    pub relays: &'a dyn SentRelays,
    pub deposits: &'a dyn DepositStore,
    pub chain: &'a dyn ChainReader,
}

/// What became of one relay this tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelayFollowed {
    /// An attempt was mined: recorded, succeeded or reverted (`gas.succeeded`).
    Mined(TxHash, GasReceipt),
    /// Its fill was mined: the payment was given up, the session is payable again.
    Filled(TxHash, GasReceipt),
    /// Its nonce went to another transaction: dropped, the session is payable again.
    Dropped,
    Resent(Resent),
    Waiting,
}

#[derive(Debug, Default)]
pub struct RelayReport {
    /// Each relay followed, by its newest attempt.
    pub followed: Vec<(TxHash, RelayFollowed)>,
    /// Relays left as they were (an answer unknown): followed again next tick.
    pub errors: Vec<(TxHash, SendError)>,
}

/// Follows every relay sent on `chain` and not yet settled. Errors: the list unknown
/// (nothing was followed).
pub async fn follow_relays(chain: ChainId, deps: &RelayDeps<'_>) -> Result<RelayReport, SendError> {
    let sent = deps.relays.sent_relays(chain).await?;
    let mut report = RelayReport::default();
    if sent.is_empty() {
        return Ok(report);
    }
    // Needed only for unmined relays: unknown, mined ones are still recorded.
    let head = deps.chain.block_number(chain).await;
    for relay in sent {
        match follow_relay(&relay, &head, deps).await {
            Ok(followed) => report.followed.push((relay.tx_hash, followed)),
            Err(e) => report.errors.push((relay.tx_hash, e)),
        }
    }
    Ok(report)
}

async fn follow_relay(
    relay: &SentWork,
    head: &Result<u64, ChainError>,
    deps: &RelayDeps<'_>,
) -> Result<RelayFollowed, SendError> {
    let now = deps.sending.clock.now();
    let mined = deps
        .sending
        .receipts
        .mined_attempt(relay.chain, &relay.attempts)
        .await?;
    if let Some(m) = mined {
        if m.attempt.fill {
            deps.relays.relay_dropped(relay).await?;
            return Ok(RelayFollowed::Filled(m.attempt.tx_hash, m.gas));
        }
        deps.relays
            .relay_mined(relay, m.attempt.tx_hash, m.gas, now)
            .await?;
        return Ok(RelayFollowed::Mined(m.attempt.tx_hash, m.gas));
    }
    let head = head.clone()?;
    let wanted = still_wanted(relay, deps);
    Ok(
        match follow_unmined(relay, head, wanted, deps.sending).await? {
            Unmined::Waiting => RelayFollowed::Waiting,
            Unmined::NonceLost => {
                deps.relays.relay_dropped(relay).await?;
                RelayFollowed::Dropped
            }
            Unmined::Resent(resent) => RelayFollowed::Resent(resent),
        },
    )
}

/// Whether the relayed payment is still wanted, read afresh: its session is still open
/// with no money of its token seen at its deposit address (pending or confirmed: the
/// buyer paid another way while the relay was stuck), and the payment would still go
/// through now (the authorization unexpired and unused, the payer still holding it).
async fn still_wanted(relay: &SentWork, deps: &RelayDeps<'_>) -> Result<bool, SendError> {
    let Some(session) = relay.session else {
        return Ok(false);
    };
    let Some(session) = deps
        .deposits
        .deposit_session(session)
        .await?
        .filter(|s| s.status == SessionStatus::Open)
    else {
        return Ok(false);
    };
    let deposited = deps
        .deposits
        .deposit_transfers(session.id)
        .await?
        .iter()
        .any(|t| t.token == session.token_address);
    if deposited {
        return Ok(false);
    }
    let newest = deps
        .sending
        .attempts
        .newest_attempt(WorkKind::Relay, relay.tx_hash)
        .await?;
    let Some(newest) = newest.filter(|n| !n.fill) else {
        return Ok(false);
    };
    let simulated = deps
        .sending
        .receipts
        .simulate_signed(relay.chain, relay.sender, &newest.raw)
        .await?;
    Ok(simulated == RelaySimulation::Succeeds)
}

#[cfg(test)]
mod tests;
